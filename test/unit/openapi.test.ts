import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../shared/http/openapi';
import { withPermissionTable } from '../../shared/http/permission-table';
import { routes } from '../../shared/http/routes';

describe('docs/openapi.json', () => {
  it('is the document generated from the route table (run npm run openapi after changing routes)', () => {
    const committed = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(openApiDocument(routes))));
  });

  it('shows in docs/authorization.md the permission every route declares (run npm run openapi)', () => {
    const committed = readFileSync('docs/authorization.md', 'utf8');
    expect(committed).toBe(withPermissionTable(committed, routes));
  });

  it('describes each operation with the permission of its route', () => {
    const document = openApiDocument(routes) as { paths: Record<string, Record<string, any>> };
    for (const route of routes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation['x-permission']).toBe(route.permission);
      expect(operation.description).toMatch(/^Who may call it: /);
    }
  });

  it('has one operation per route with a unique operationId', () => {
    const ids = routes.map((route) => route.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = routes.map((route) => `${route.method} ${route.path.replace(/\/$/, '')}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
