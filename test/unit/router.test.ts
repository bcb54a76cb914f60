import { describe, expect, it } from 'vitest';
import type { RouteDef } from '../../shared/api/route';
import { MethodNotAllowedError, NotFoundError } from '../../shared/errors';
import { Router } from '../../shared/http/router';

const route = (method: RouteDef['method'], path: string, operationId: string): RouteDef => ({
  operationId,
  method,
  path,
  group: 'auth',
  permission: 'public',
  scope: 'platform',
  summary: operationId,
});

const router = new Router([
  route('GET', '/api/items/', 'list'),
  route('GET', '/api/items/{id}/', 'get'),
  route('POST', '/api/items/upsert/', 'upsert'),
  route('PATCH', '/api/items/{id}/', 'patch'),
]);

describe('Router.match', () => {
  it('matches with and without the trailing slash', () => {
    expect(router.match('GET', '/api/items').route.operationId).toBe('list');
    expect(router.match('GET', '/api/items/').route.operationId).toBe('list');
  });

  it('extracts and decodes path parameters', () => {
    expect(router.match('GET', '/api/items/a%20b/').params).toEqual({ id: 'a b' });
  });

  it('prefers a static segment over a parameter', () => {
    expect(router.match('POST', '/api/items/upsert').route.operationId).toBe('upsert');
    expect(router.match('PATCH', '/api/items/upsert').route.operationId).toBe('patch');
  });

  it('throws 405 with the allowed methods when only the method differs', () => {
    try {
      router.match('DELETE', '/api/items/7');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MethodNotAllowedError);
      expect((error as MethodNotAllowedError).allowed.sort()).toEqual(['GET', 'PATCH']);
    }
  });

  it('throws 404 for an unknown path', () => {
    expect(() => router.match('GET', '/api/other')).toThrow(NotFoundError);
    expect(() => router.match('GET', '/api/items/1/2')).toThrow(NotFoundError);
  });

  it('does not match a malformed percent-encoding', () => {
    expect(() => router.match('GET', '/api/items/%E0%A4%A/')).toThrow(NotFoundError);
  });
});
