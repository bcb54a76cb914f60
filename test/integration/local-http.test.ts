import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

let platform: TestPlatform;
let restricted: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
  restricted = await startTestPlatform({ CORS_ORIGINS: 'http://localhost:5173,https://app.example.com' });
});
afterAll(async () => {
  await Promise.all([platform.stop(), restricted.stop()]);
});

function preflight(baseUrl: string, origin: string) {
  return fetch(`${baseUrl}/api/cloud/users/me/`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization, x-site',
    },
  });
}

describe('CORS on the local server', () => {
  it('answers a browser preflight (it was a 405) for any origin by default', async () => {
    const response = await preflight(platform.baseUrl, 'http://localhost:5173');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe(
      'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    );
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type, x-site');
    expect(response.headers.get('access-control-max-age')).toBe('3600');
    // Any origin may read answers, but never with the browser's cookies.
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets a browser read answers, errors included, and their request id', async () => {
    const answer = await platform.api.get('/health', { headers: { origin: 'http://localhost:5173' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-expose-headers')).toBe(
      'x-request-id, allow, retry-after, x-total-count',
    );
    const refused = await platform.api.get('/api/cloud/users/me/', { headers: { origin: 'https://a.test' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('with CORS_ORIGINS, allows the listed origins only', async () => {
    const listed = await preflight(restricted.baseUrl, 'https://app.example.com');
    expect(listed.status).toBe(204);
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(listed.headers.get('vary')).toBe('origin');
    const other = await preflight(restricted.baseUrl, 'https://evil.example.com');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const answer = await restricted.api.get('/health', { headers: { origin: 'http://localhost:5173' } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    // A listed origin's app may send the session cookie (fetch with credentials: 'include').
    expect(listed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    expect(other.headers.get('access-control-allow-credentials')).toBeNull();
    const unlisted = await restricted.api.get('/health', { headers: { origin: 'http://localhost:3001' } });
    expect(unlisted.status).toBe(200);
    expect(unlisted.headers.get('access-control-allow-origin')).toBeNull();
    expect(unlisted.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('still answers 405 to an OPTIONS that is not a preflight', async () => {
    const response = await platform.api.request('OPTIONS', '/api/cloud/users/me/');
    expect(response.status).toBe(405);
  });
});

describe('pagination links', () => {
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) await createUser(platform, { username: unique('page') });
  });

  it('use the scheme and host the local server was called with', async () => {
    const page = await platform.adminApi.get('/api/cloud/users/?page_size=1&page=2');
    expect(page.status).toBe(200);
    const origin = platform.baseUrl;
    expect(page.body.next).toBe(`${origin}/api/cloud/users/?page_size=1&page=3`);
    expect(page.body.previous).toBe(`${origin}/api/cloud/users/?page_size=1&page=1`);
  });

  it('use what a proxy in front says, when it says it', async () => {
    const page = await platform.adminApi.get('/api/cloud/users/?page_size=1', {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' },
    });
    expect(page.body.next).toBe('https://api.example.com/api/cloud/users/?page_size=1&page=2');
  });
});
