import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

describe('POST /api/auth/jwt/token/', () => {
  it('returns access and refresh tokens for the bootstrap superuser', async () => {
    const response = await platform.api.post('/api/auth/jwt/token/', {
      username: 'admin',
      password: adminPassword,
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['access', 'refresh']);
    expect(response.body.access.split('.')).toHaveLength(3);
  });

  it('accepts the e-mail address as the username', async () => {
    const response = await platform.api.post('/api/auth/jwt/token/', {
      username: 'ADMIN@example.com',
      password: adminPassword,
    });
    expect(response.status).toBe(200);
  });

  it('returns 401 for a wrong password without telling which part was wrong', async () => {
    const response = await platform.api.post('/api/auth/jwt/token/', { username: 'admin', password: 'nope' });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'No active account found with the given credentials' });
  });

  it('returns 401 for an unknown user', async () => {
    const response = await platform.api.post('/api/auth/jwt/token/', {
      username: 'ghost',
      password: 'whatever',
    });
    expect(response.status).toBe(401);
  });

  it('returns 401 for a deactivated user', async () => {
    const { user, password } = await createUser(platform);
    await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: false });
    const response = await platform.api.post('/api/auth/jwt/token/', { username: user.username, password });
    expect(response.status).toBe(401);
  });

  it('returns 400 naming each missing field', async () => {
    const response = await platform.api.post('/api/auth/jwt/token/', {});
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      username: ['This field is required.'],
      password: ['This field is required.'],
    });
  });

  it('returns 400 for malformed JSON', async () => {
    const response = await platform.api.post('/api/auth/jwt/token/', undefined, {
      raw: '{"username": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ non_field_errors: ['The request body is not valid JSON.'] });
  });

  it('returns 400 for a body that is not JSON', async () => {
    const response = await platform.api.post('/api/auth/jwt/token/', undefined, {
      raw: 'username=admin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ non_field_errors: ['Send the body as application/json.'] });
  });
});

describe('POST /api/auth/jwt/refresh/', () => {
  it('returns a new access token for a refresh token', async () => {
    const login = await platform.api.post('/api/auth/jwt/token/', {
      username: 'admin',
      password: adminPassword,
    });
    const response = await platform.api.post('/api/auth/jwt/refresh/', { refresh: login.body.refresh });
    expect(response.status).toBe(200);
    const me = await platform.api.withToken(response.body.access).get('/api/cloud/users/me/');
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('admin');
  });

  it('refuses an access token in place of a refresh token', async () => {
    const login = await platform.api.post('/api/auth/jwt/token/', {
      username: 'admin',
      password: adminPassword,
    });
    const response = await platform.api.post('/api/auth/jwt/refresh/', { refresh: login.body.access });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Given token not valid for any token type' });
  });
});

describe('bearer authentication', () => {
  it("returns doc 1's 401 body when the token is missing", async () => {
    const response = await platform.api.get('/api/cloud/users/me/');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('returns 401 for a forged token', async () => {
    const login = await platform.api.post('/api/auth/jwt/token/', {
      username: 'admin',
      password: adminPassword,
    });
    const [header, payload] = login.body.access.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '999' })).toString('base64url');
    const response = await platform.api.withToken(`${header}.${forged}.AAAA`).get('/api/cloud/users/me/');
    expect(response.status).toBe(401);
  });

  it('refuses a refresh token used as a bearer token', async () => {
    const login = await platform.api.post('/api/auth/jwt/token/', {
      username: 'admin',
      password: adminPassword,
    });
    const response = await platform.api.withToken(login.body.refresh).get('/api/cloud/users/me/');
    expect(response.status).toBe(401);
  });

  it('returns 401 for another scheme than Bearer', async () => {
    const response = await platform.api.get('/api/cloud/users/me/', {
      headers: { authorization: 'Basic YTpi' },
    });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the ES256 verification key', async () => {
    const response = await platform.api.get('/.well-known/jwks.json');
    expect(response.status).toBe(200);
    expect(response.body.keys).toHaveLength(1);
    expect(response.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(response.body.keys[0].d).toBeUndefined();
  });
});
