import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../shared/http/openapi';
import { routes } from '../../shared/http/routes';

describe('docs/openapi.json', () => {
  it('is the document generated from the route table (run npm run openapi after changing routes)', () => {
    const committed = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(openApiDocument(routes))));
  });

  it('has one operation per route with a unique operationId', () => {
    const ids = routes.map((route) => route.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = routes.map((route) => `${route.method} ${route.path.replace(/\/$/, '')}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
