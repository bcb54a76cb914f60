import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/log';
import { strictClock } from '../support/clock';
import { latestToken, outboxFor } from '../support/invitation-mail';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: an organization is self-service, so an invitation (something a tenant
 * makes) must never act on an account that exists outside it. Only the secret that the invitee alone received by
 * e-mail may, and even then a deactivated account stays deactivated; nothing an inviter sees tells whether the
 * invited e-mail already has an account.
 */

let platform: TestPlatform;
const time = strictClock();
// Shorter than the access tokens' hour, so that moving the clock past it keeps the test's sign-ins.
const ttlSeconds = 600;

/** Every log line of the platform, as JSON text. */
const logLines: string[] = [];
function recordingLogger(base: Record<string, unknown> = {}): Logger {
  const write = (message: string, fields?: Record<string, unknown>) => {
    logLines.push(JSON.stringify({ message, ...base, ...fields }));
  };
  return {
    debug: write,
    info: write,
    warn: write,
    error: write,
    child: (fields) => recordingLogger({ ...base, ...fields }),
  };
}

beforeAll(async () => {
  platform = await startTestPlatform(
    {
      INVITATION_LINK_BASE: 'https://app.example.com/join/',
      INVITATION_TTL_SECONDS: String(ttlSeconds),
    },
    { log: recordingLogger(), clock: time.clock },
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
});

const invitations = (tenant: Tenant) => `/api/cloud/organizations/${tenant.organization.slug}/invitations/`;
const details = (token: string) => `/api/cloud/invitations/${token}/details/`;
const accept = (token: string) => `/api/cloud/invitations/${token}/accept/`;
const chosen = { password: 'Copper-Lantern-Meadow-83', first_name: 'Mal', last_name: 'Lory' };

async function invite(tenant: Tenant, email: string) {
  const response = await tenant.owner.post(invitations(tenant), { invitee_identifier: email });
  expect(response.status).toBe(201);
  return response.body as { uuid: string; id: number };
}

describe('cross-tenant trust suite: invitations', () => {
  it('a plain user cannot take over the superuser by inviting its e-mail and accepting with the uuid', async () => {
    // Any signed-in user may create an organization: here, an attacker.
    const attacker = await createTenant(platform);
    const made = await invite(attacker, 'admin@example.com');
    const taken = await platform.api.post(accept(made.uuid), chosen);
    expect(taken.status).toBe(404);
    expect((await platform.api.get(details(made.uuid))).status).toBe(404);
    // The superuser keeps its password; the attacker's choice opens nothing.
    const attempt = await platform.api.post('/api/auth/jwt/token/', {
      username: 'admin@example.com',
      password: chosen.password,
    });
    expect(attempt.status).toBe(401);
    await platform.api.login('admin', adminPassword);
  });

  it('the token is a secret of at least 128 bits that only the e-mail carries: never the uuid, never in an answer or a log line', async () => {
    const tenant = await createTenant(platform);
    const email = `${unique('secret')}@example.com`;
    const made = await invite(tenant, email);
    const token = latestToken(platform, email);
    expect(token).not.toBe(made.uuid);
    expect(token).not.toBe(String(made.id));
    // base64url: 6 bits a character.
    expect(token.length * 6).toBeGreaterThanOrEqual(128);
    const answers = [
      JSON.stringify(made),
      (await tenant.owner.get(invitations(tenant))).text,
      (await tenant.owner.get(`${invitations(tenant)}${made.uuid}/`)).text,
      (await tenant.owner.post(`${invitations(tenant)}${made.uuid}/resend/`)).text,
    ];
    const resent = latestToken(platform, email);
    const detailsAnswer = await platform.api.get(details(resent));
    expect(detailsAnswer.status).toBe(200);
    answers.push(detailsAnswer.text);
    for (const answer of answers) {
      expect(answer).not.toContain(token);
      expect(answer).not.toContain(resent);
    }
    expect(logLines.some((line) => line.includes(token) || line.includes(resent))).toBe(false);
    // The local outbox still names the message's file in its log line.
    expect(logLines.some((line) => line.includes('mail written to the local outbox'))).toBe(true);
  });

  it('a resend mints a new token: the older link stops working', async () => {
    const tenant = await createTenant(platform);
    const email = `${unique('resend')}@example.com`;
    const made = await invite(tenant, email);
    const first = latestToken(platform, email);
    const resent = await tenant.owner.post(`${invitations(tenant)}${made.uuid}/resend/`);
    expect(resent.status).toBe(200);
    const second = latestToken(platform, email);
    expect(second).not.toBe(first);
    expect((await platform.api.get(details(first))).status).toBe(404);
    expect((await platform.api.post(accept(first), chosen)).status).toBe(404);
    expect((await platform.api.post(accept(second), chosen)).status).toBe(200);
  });

  it('an inviter learns nothing about whether the e-mail has an account: invitee and invitee_user stay null', async () => {
    const tenant = await createTenant(platform);
    const existing = await createUser(platform, { email: `${unique('known')}@example.com` });
    const fresh = `${unique('fresh')}@example.com`;
    const answers = [];
    for (const email of [existing.user.email, fresh]) {
      const made = await invite(tenant, email);
      answers.push(made);
      answers.push((await tenant.owner.get(`${invitations(tenant)}${made.uuid}/`)).body);
      const resent = await tenant.owner.post(`${invitations(tenant)}${made.uuid}/resend/`);
      expect(resent.status).toBe(200);
    }
    const list = await tenant.owner.get(invitations(tenant));
    answers.push(...list.body.results);
    expect(answers).toHaveLength(6);
    for (const answer of answers) {
      expect(answer.invitee).toBeNull();
      expect(answer.invitee_user).toBeNull();
    }
    // The existing account's identity appears nowhere in the inviter's answers.
    const { uuid } = existing.user as { uuid?: string };
    expect(uuid).toBeTruthy();
    expect(JSON.stringify(answers)).not.toContain(existing.user.username);
    expect(JSON.stringify(answers)).not.toContain(uuid);
    // Resending by a user id would tell existing accounts (old ids) from new placeholders: it is refused the same
    // way for every id.
    const byId = await tenant.owner.post(`${invitations(tenant)}${existing.user.id}/resend/`);
    expect(byId.status).toBe(400);
    expect(byId.body).toHaveProperty('user_id');
  });

  it('with the secret token, an existing account gets the new password; its other sessions end and it is told by e-mail', async () => {
    const tenant = await createTenant(platform);
    const victim = await createUser(platform);
    const before = await victim.api.get('/api/cloud/users/me/');
    expect(before.status).toBe(200);
    await invite(tenant, victim.user.email);
    const token = latestToken(platform, victim.user.email);
    expect((await platform.api.post(accept(token), chosen)).status).toBe(200);
    expect((await victim.api.get('/api/cloud/users/me/')).status).toBe(401);
    await platform.api.login(victim.user.username, chosen.password);
    const notice = outboxFor(platform, victim.user.email).at(-1) ?? '';
    expect(notice).toContain('Subject: Your password was changed');
    const { name } = tenant.organization as { name?: string };
    expect(name).toBeTruthy();
    expect(notice).toContain(`"${name}"`);
    expect(notice).not.toContain(token);
  });

  it('an account a superuser deactivated stays deactivated: acceptance is refused with 403', async () => {
    const tenant = await createTenant(platform);
    const deactivated = await createUser(platform);
    const off = await platform.adminApi.patch(`/api/cloud/users/${deactivated.user.id}/`, {
      is_active: false,
    });
    expect(off.status).toBe(200);
    await invite(tenant, deactivated.user.email);
    const token = latestToken(platform, deactivated.user.email);
    const refused = await platform.api.post(accept(token), chosen);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/deactivated/);
    const shown = await platform.adminApi.get(`/api/cloud/users/${deactivated.user.id}/`);
    expect(shown.body.is_active).toBe(false);
    const signIn = await platform.api.post('/api/auth/jwt/token/', {
      username: deactivated.user.username,
      password: chosen.password,
    });
    expect(signIn.status).toBe(401);
  });

  it('the placeholder account an invitation created is activated by acceptance', async () => {
    const tenant = await createTenant(platform);
    const email = `${unique('placeholder')}@example.com`;
    await invite(tenant, email);
    const accepted = await platform.api.post(accept(latestToken(platform, email)), chosen);
    expect(accepted.status).toBe(200);
    await platform.api.login(email, chosen.password);
  });

  it('an invitation expires after INVITATION_TTL_SECONDS (410 like an accepted one); a resend extends it', async () => {
    const tenant = await createTenant(platform);
    const email = `${unique('late')}@example.com`;
    const made = await invite(tenant, email);
    const token = latestToken(platform, email);
    time.advance((ttlSeconds + 1) * 1000);
    const late = await platform.api.get(details(token));
    expect(late.status).toBe(410);
    expect(late.body.detail).toMatch(/expired/);
    expect((await platform.api.post(accept(token), chosen)).status).toBe(410);
    const resent = await tenant.owner.post(`${invitations(tenant)}${made.uuid}/resend/`);
    expect(resent.status).toBe(200);
    expect((await platform.api.post(accept(latestToken(platform, email)), chosen)).status).toBe(200);
  });

  it('the e-mail quotes the organization name, so that it cannot pass for the platform speaking', async () => {
    const { api } = await createUser(platform);
    const name = `Acme ${unique('x')}. Your account is suspended, visit evil.example`;
    const org = await api.post('/api/cloud/organizations/', { name });
    expect(org.status).toBe(201);
    const email = `${unique('quoted')}@example.com`;
    const made = await api.post(`/api/cloud/organizations/${org.body.slug}/invitations/`, {
      invitee_identifier: email,
    });
    expect(made.status).toBe(201);
    const [mail] = outboxFor(platform, email);
    expect(mail).toContain(`You have been invited to join the organization "${org.body.name}"`);
    expect(mail).toMatch(/Subject: .*"/);
  });
});
