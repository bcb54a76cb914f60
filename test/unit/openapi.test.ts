import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { groups, routes } from '../../functions/groups';
import { envelopeSchemas } from '../../shared/api/responses';
import type { RouteDef } from '../../shared/api/route';
import { openApiDocument } from '../../shared/http/openapi';
import { withPermissionTable } from '../../shared/http/permission-table';

type Operation = {
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};

const committed = () => JSON.parse(readFileSync('docs/openapi.json', 'utf8'));
const operationOf = (document: { paths: Record<string, Record<string, Operation>> }, route: RouteDef) =>
  document.paths[route.path]?.[route.method.toLowerCase()];
const declared = (route: RouteDef) => Object.keys(route.responses ?? {}).map(Number);

/** Permissions whose check can refuse a signed-in caller with 403 (shared/policy/permissions.ts). */
const refusing = (route: RouteDef) =>
  route.permission === 'superuser' ||
  route.permission === 'organization:admin' ||
  route.permission === 'organization:owner' ||
  route.permission.startsWith('site:') ||
  route.permission === 'rule:account-change' ||
  route.permission === 'rule:own-roles-or-view' ||
  route.permission === 'rule:site-owner';

/** Routes that count failed password checks as sign-in attempts, and so can be throttled. */
const throttled = new Set(['obtainToken', 'startBrowserSession', 'updateUser', 'providerToken']);

/** The error statuses the request pipeline itself can answer a route with, before or around its operation. */
function pipelineStatuses(route: RouteDef): number[] {
  const statuses: number[] = [];
  // Validation, and on site routes a request that names no site.
  if (route.body || route.query || route.params || route.scope === 'site') statuses.push(400);
  if (route.permission !== 'public') statuses.push(401);
  if (refusing(route)) statuses.push(403);
  // Path parameters name things that may not exist; the site of a site route, too.
  if (route.path.includes('{') || route.scope === 'site') statuses.push(404);
  if (throttled.has(route.operationId)) statuses.push(429);
  return statuses;
}

describe('docs/openapi.json', () => {
  it('is the document generated from the route table (run npm run openapi after changing routes)', () => {
    const committed = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(openApiDocument(Object.values(groups)))));
  });

  it("has one version, package.json's, which /health answers too (test/integration/meta.test.ts)", () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect((openApiDocument(Object.values(groups)).info as { version: string }).version).toBe(version);
    expect(committed().info.version).toBe(version);
  });

  it("names the resend route's path parameter for what it takes: the invitation's uuid (docs/api-decisions.md)", () => {
    const document = openApiDocument(Object.values(groups)) as { paths: Record<string, Record<string, any>> };
    const resend = document.paths['/api/cloud/organizations/{org_slug}/invitations/{invitation_id}/resend/'];
    expect(resend?.post.operationId).toBe('resendInvitation');
    expect(resend?.post.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      'org_slug',
      'invitation_id',
    ]);
  });

  it('shows in docs/authorization.md the permission every route declares (run npm run openapi)', () => {
    const committed = readFileSync('docs/authorization.md', 'utf8');
    expect(committed).toBe(withPermissionTable(committed, routes));
  });

  it('describes each operation with the permission of its route', () => {
    const document = openApiDocument(Object.values(groups)) as { paths: Record<string, Record<string, any>> };
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

describe('the responses of the OpenAPI document', () => {
  it('is a valid OpenAPI document (swagger-parser)', async () => {
    await expect(SwaggerParser.validate(committed())).resolves.toBeDefined();
  });

  it('has every route, with every status the route declares and nothing else', async () => {
    const document = (await SwaggerParser.validate(committed())) as never;
    for (const route of routes) {
      const operation = operationOf(document, route);
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(operation?.responses ?? {}).map(Number)).toEqual(declared(route));
    }
  });

  it('gives every route a success response with a description', () => {
    for (const route of routes) {
      const successes = declared(route).filter((status) => status < 400);
      expect(successes.length, route.operationId).toBeGreaterThan(0);
      for (const status of successes) expect(route.responses?.[status]?.description).toBeTruthy();
    }
  });

  it('declares on every route the error statuses the pipeline can answer it with', () => {
    for (const route of routes) {
      const missing = pipelineStatuses(route).filter((status) => !declared(route).includes(status));
      expect(missing, `${route.operationId} (${route.permission})`).toEqual([]);
    }
  });

  it("shows every error status's body as the error envelope of the route's group", () => {
    const document = committed();
    for (const route of routes) {
      const component = envelopeSchemas[groups[route.group].envelope].name;
      // An error status without a schema of its own (a 503 health report has one) is the envelope.
      const envelopes = declared(route).filter((code) => code >= 400 && !route.responses?.[code]?.schema);
      for (const status of envelopes) {
        const schema = operationOf(document, route)?.responses[status]?.content?.['application/json']?.schema;
        expect(schema, `${route.operationId} ${status}`).toEqual({
          $ref: `#/components/schemas/${component}`,
        });
      }
    }
    expect(Object.keys(document.components.schemas).sort()).toEqual([
      'DataError',
      'DetailError',
      'EventsError',
      'RolesError',
      'SecretsError',
    ]);
  });
});
