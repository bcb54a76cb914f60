import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authManifest } from '../../functions/auth/manifest';
import { authOperations } from '../../functions/auth/operations';
import { authRoutes } from '../../shared/auth/routes';
import { buildDeps } from '../../shared/compose/build-deps';
import { loadConfig } from '../../shared/config';
import { createGroupHandler, type HttpEvent } from '../../shared/http/handler';
import { compileSchema } from '../../shared/http/schema-compiler';
import { useSchemaCompiler } from '../../shared/http/validation';
import type { Logger } from '../../shared/log';

function event(method: string, path: string, body?: string, headers: Record<string, string> = {}): HttpEvent {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers,
    body,
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', http: { method, path } },
  } as unknown as HttpEvent;
}

function setup(operations = authOperations) {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const requests: Record<string, unknown>[] = [];
  const logger = (bound: Record<string, unknown>): Logger => ({
    debug: () => {},
    info: (message, fields) => {
      if (message === 'request') requests.push({ ...bound, ...fields });
    },
    warn: () => {},
    error: (message, fields) => lines.push({ message, fields: { ...bound, ...fields } }),
    child: (fields) => logger({ ...bound, ...fields }),
  });
  const log = logger({});
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'handler-')), LOG_LEVEL: 'silent' });
  const deps = buildDeps(config, { log });
  return { handler: createGroupHandler(authManifest, operations, () => deps, authRoutes), lines, requests };
}

// As the local server does: the route schemas compile at start.
useSchemaCompiler(compileSchema);

describe('createGroupHandler', () => {
  it("sends a Set-Cookie in the response's cookies, as API Gateway's payload 2.0 expects", async () => {
    const { handler } = setup();
    const response = await handler(event('DELETE', '/api/auth/session/'), {} as Context);
    expect(response.statusCode).toBe(204);
    expect(response.cookies).toEqual([
      'sessionid=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Lax; Secure',
    ]);
    expect(response.headers?.['set-cookie']).toBeUndefined();
    expect(response.headers?.['x-request-id']).toBe('req-1');
  });

  it('turns an unexpected error into a 500 with the request id, logged, without stack or message', async () => {
    const { handler, lines } = setup({
      ...authOperations,
      jwks: async () => {
        throw new Error('relation "secret_table" does not exist');
      },
    });
    const response = await handler(event('GET', '/.well-known/jwks.json'), {} as Context);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body ?? '')).toEqual({
      detail: 'A server error occurred.',
      request_id: 'req-1',
    });
    expect(response.body).not.toContain('secret_table');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({ request_id: 'req-1', group: 'auth' });
  });

  it('writes one request line with method, route, status, duration and request id', async () => {
    const { handler, requests } = setup();
    await handler(event('GET', '/.well-known/jwks.json'), {} as Context);
    await handler(event('GET', '/nowhere/'), {} as Context);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: 'GET', route: 'jwks', status: 200, request_id: 'req-1' });
    expect(requests[0]?.duration_ms).toEqual(expect.any(Number));
    expect(requests[1]).toMatchObject({ route: null, status: 404, request_id: 'req-1', user_id: null });
  });

  it('refuses to start when the group does not implement one of its routes', () => {
    const { jwks: _missing, ...incomplete } = authOperations;
    expect(() => setup(incomplete)).toThrow('Group auth does not implement jwks');
  });

  it('answers a route of the group without touching any store', async () => {
    const { handler } = setup();
    const response = await handler(event('GET', '/.well-known/jwks.json/'), {} as Context);
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['content-type']).toBe('application/json');
  });

  it('returns 404 in the group envelope for a path of another group', async () => {
    const { handler } = setup();
    const response = await handler(event('GET', '/api/cloud/users/me/'), {} as Context);
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body ?? '')).toEqual({ detail: 'Not found.' });
  });

  it("answers a 500 in the group's envelope, logged, before Lambda's time runs out", async () => {
    const { handler, lines, requests } = setup({
      ...authOperations,
      jwks: () => new Promise(() => {}),
    });
    // Lambda's context tells the time left: 5 ms, all of it the margin, so the deadline is now.
    const context = { getRemainingTimeInMillis: () => 5 } as Context;
    const response = await handler(event('GET', '/.well-known/jwks.json'), context);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body ?? '')).toEqual({
      detail: 'A server error occurred.',
      request_id: 'req-1',
    });
    expect(lines[0]?.fields).toMatchObject({ request_id: 'req-1', group: 'auth' });
    expect(requests[0]).toMatchObject({ route: 'jwks', status: 500 });
  });

  it('builds no request line when the logger writes no info lines', async () => {
    const { handler, requests } = setup();
    const quiet = handler;
    // The recording logger says info is off: the pipeline must not call info for the request line.
    const deps = buildDeps(
      loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'handler-')), LOG_LEVEL: 'silent' }),
      {
        log: {
          debug: () => {},
          info: () => requests.push({ written: true }),
          warn: () => {},
          error: () => {},
          enabled: (level) => level !== 'info' && level !== 'debug',
          child() {
            return this;
          },
        },
      },
    );
    const silent = createGroupHandler(authManifest, authOperations, () => deps, authRoutes);
    await silent(event('GET', '/.well-known/jwks.json'), {} as Context);
    expect(requests).toEqual([]);
    await quiet(event('GET', '/.well-known/jwks.json'), {} as Context);
    expect(requests).toHaveLength(1);
  });
});
