import { errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import * as schemas from './schemas';

/** The platform's own description and health: public, not tied to a site. */
export const metaRoutes = [
  {
    operationId: 'openApiDocument',
    method: 'GET',
    path: '/ninja-openapi.json',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'The OpenAPI document of this API, generated from the route table',
    responses: { 200: json('The OpenAPI 3.1 document', schemas.openApiDocument) },
  },
  {
    operationId: 'openApiDocumentAlias',
    method: 'GET',
    path: '/openapi.json',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'The OpenAPI document of this API (same as /ninja-openapi.json)',
    responses: { 200: json('The OpenAPI 3.1 document', schemas.openApiDocument) },
  },
  {
    operationId: 'apiExplorer',
    method: 'GET',
    path: '/ninja-docs/',
    group: 'meta',
    permission: 'public',
    scope: 'platform',
    summary: 'An interactive explorer of the API (Swagger UI)',
    responses: { 200: { description: 'The explorer page', schema: schemas.text, contentType: 'text/html' } },
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
    responses: {
      200: { description: 'The asset, with its own content type', schema: schemas.text, contentType: '*/*' },
      ...errors(400, 404),
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
    responses: {
      200: json('Every store is reachable', schemas.healthReport),
      503: json('A store is unreachable', schemas.healthReport),
    },
  },
] as const satisfies readonly RouteDef[];
