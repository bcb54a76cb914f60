import type { RouteDef } from '../http/route';

/** The platform's own description and health: public, not tied to a site. */
export const metaRoutes: RouteDef[] = [
  {
    operationId: 'openApiDocument',
    method: 'GET',
    path: '/ninja-openapi.json',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'The OpenAPI document of this API, generated from the route table',
  },
  {
    operationId: 'openApiDocumentAlias',
    method: 'GET',
    path: '/openapi.json',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'The OpenAPI document of this API (same as /ninja-openapi.json)',
  },
  {
    operationId: 'apiExplorer',
    method: 'GET',
    path: '/ninja-docs/',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'An interactive explorer of the API (Swagger UI)',
  },
  {
    operationId: 'apiExplorerAsset',
    method: 'GET',
    path: '/ninja-docs/{asset}',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'A script, style sheet or icon of the API explorer',
    params: {
      type: 'object',
      properties: { asset: { type: 'string', minLength: 1, maxLength: 100 } },
    },
  },
  {
    operationId: 'health',
    method: 'GET',
    path: '/health',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'Whether the stores are reachable, and the version of the platform',
  },
];
