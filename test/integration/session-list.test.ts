import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser } from '../support/tenant';

/** One's own sessions (issue 39, item 9): listed with where they came from, ended one at a time or all others. */

let platform: TestPlatform;
let ownOrigin: string;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
  ownOrigin = new URL(platform.baseUrl).origin;
});
afterAll(async () => {
  await platform.stop();
});

const anonymous = () => new ApiClient(platform.baseUrl);

async function signIn(username: string, password: string, userAgent: string) {
  const response = await anonymous().post(
    '/api/auth/jwt/token/',
    { username, password },
    { headers: { 'user-agent': userAgent } },
  );
  expect(response.status).toBe(200);
  return response.body as { access: string; refresh: string };
}

async function browserSignIn(username: string, password: string): Promise<string> {
  const response = await anonymous().post(
    '/api/auth/session/',
    { username, password },
    { headers: { origin: ownOrigin, 'user-agent': 'Browser/1.0' } },
  );
  expect(response.status).toBe(200);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

const refresh = (token: string) => anonymous().post('/api/auth/jwt/refresh/', { refresh: token });

describe('the list of one’s sessions', () => {
  it('shows each sign-in with its kind, times, address and user agent, and marks the caller’s own', async () => {
    const { user, password } = await createUser(platform);
    const phone = await signIn(user.username, password, 'Phone/2.0');
    await signIn(user.username, password, 'Laptop/3.0');
    await browserSignIn(user.username, password);
    const list = await anonymous().withToken(phone.access).get('/api/auth/sessions/');
    expect(list.status).toBe(200);
    const agents = list.body.results.map((s: { user_agent: string }) => s.user_agent);
    expect(agents).toEqual(expect.arrayContaining(['Phone/2.0', 'Laptop/3.0', 'Browser/1.0']));
    const own = list.body.results.filter((s: { current: boolean }) => s.current);
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ kind: 'refresh', user_agent: 'Phone/2.0', client_ip: expect.any(String) });
    expect(list.body.results.find((s: { kind: string }) => s.kind === 'browser')).toMatchObject({
      created_at: expect.any(String),
      last_used_at: expect.any(String),
    });
  });

  it('ends one session: its refresh token stops working, the others go on', async () => {
    const { user, password } = await createUser(platform);
    const first = await signIn(user.username, password, 'One/1');
    const second = await signIn(user.username, password, 'Two/1');
    const api = anonymous().withToken(first.access);
    const target = (await api.get('/api/auth/sessions/')).body.results.find(
      (s: { user_agent: string }) => s.user_agent === 'Two/1',
    );
    expect((await api.request('DELETE', `/api/auth/sessions/${target.id}/`)).status).toBe(204);
    expect((await refresh(second.refresh)).status).toBe(401);
    expect((await refresh(first.refresh)).status).toBe(200);
    // Ending it again ends nothing more.
    expect((await api.request('DELETE', `/api/auth/sessions/${target.id}/`)).status).toBe(204);
  });

  it('ends all the others, browser sessions included, and keeps the caller’s', async () => {
    const { user, password } = await createUser(platform);
    const kept = await signIn(user.username, password, 'Kept/1');
    const other = await signIn(user.username, password, 'Other/1');
    const cookie = await browserSignIn(user.username, password);
    const ended = await anonymous().withToken(kept.access).post('/api/auth/sessions/end-others/');
    expect(ended.status).toBe(200);
    // The other sign-in, the browser session, and the sign-in createUser made.
    expect(ended.body.ended).toBe(3);
    expect((await refresh(other.refresh)).status).toBe(401);
    expect((await anonymous().get('/api/cloud/users/me/', { headers: { cookie } })).status).toBe(401);
    expect((await refresh(kept.refresh)).status).toBe(200);
  });

  it('never shows or ends another user’s sessions', async () => {
    const alice = await createUser(platform);
    const bob = await createUser(platform);
    const bobTokens = await signIn(bob.user.username, bob.password, 'Bob/1');
    const bobSessions = (await anonymous().withToken(bobTokens.access).get('/api/auth/sessions/')).body
      .results;
    const aliceList = (await alice.api.get('/api/auth/sessions/')).body.results;
    expect(aliceList.map((s: { id: string }) => s.id)).not.toContain(bobSessions[0].id);
    // The same answer as for an id of no session: nothing tells Alice the id is Bob's, and nothing of his ends.
    const attempt = await alice.api.request('DELETE', `/api/auth/sessions/${bobSessions[0].id}/`);
    expect(attempt.status).toBe(204);
    expect((await refresh(bobTokens.refresh)).status).toBe(200);
  });

  it('leaves out the sessions a password change ended', async () => {
    const { user, password } = await createUser(platform);
    const before = await signIn(user.username, password, 'Before/1');
    const newPassword = 'Copper-Nebula-Thistle-5';
    const changed = await anonymous()
      .withToken(before.access)
      .patch(`/api/cloud/users/${user.id}/`, { current_password: password, password: newPassword });
    expect(changed.status).toBe(200);
    const after = await signIn(user.username, newPassword, 'After/1');
    const list = (await anonymous().withToken(after.access).get('/api/auth/sessions/')).body.results;
    expect(list.map((s: { user_agent: string }) => s.user_agent)).toEqual(['After/1']);
  });

  it('answers 400 naming session_id for an id of no session shape', async () => {
    const { api } = await createUser(platform);
    const response = await api.request('DELETE', '/api/auth/sessions/not-a-session/');
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['session_id']);
  });
});
