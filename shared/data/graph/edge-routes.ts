import { maxSafeInteger } from '../../api/numbers';
import { errors, json } from '../../api/responses';
import type { RouteDef } from '../../api/route';
import { recordPage } from '../query/paging';
import { maxTypeLength } from '../schema/graph';

/** The edge endpoints of a table's graph (doc 3, Edge operations; decisions in docs/graph.md). */

const edges = '/api/apps/{app_slug}/datatables/{name}/edges';
const route = { group: 'data', scope: 'site' } as const;

/** Edges per create request, as records per bulk request. */
export const maxBulkEdges = 1000;

/** An endpoint: a key of the node table (UUID or text keys as strings, integer keys as numbers or strings). */
const endpoint = {
  type: ['string', 'integer'],
  maxLength: 1000,
  minimum: -maxSafeInteger,
  maximum: maxSafeInteger,
} as const;
const typeName = { type: 'string', minLength: 1, maxLength: maxTypeLength } as const;

const edgeBody = {
  type: 'object',
  required: ['from_id', 'to_id', 'type'],
  properties: {
    from_id: endpoint,
    to_id: endpoint,
    type: typeName,
    metadata: { type: ['object', 'null'] },
  },
  additionalProperties: false,
} as const;

/** Which edges a list or a delete is about; all that are given must match. */
const selection = {
  from_id: { type: 'string', maxLength: 1000 },
  to_id: { type: 'string', maxLength: 1000 },
  type: typeName,
} as const;

const edge = {
  type: 'object',
  required: ['id', 'from_id', 'to_id', 'type', 'metadata', 'created_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    from_id: { type: ['string', 'integer'] },
    to_id: { type: ['string', 'integer'] },
    type: { type: 'string' },
    metadata: { type: ['object', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
} as const;

const edgeList = {
  type: 'object',
  required: ['data', 'total', 'page', 'page_size'],
  properties: {
    data: { type: 'array', items: edge },
    total: { type: 'integer', minimum: 0 },
    page: { type: 'integer', minimum: 1 },
    page_size: { type: 'integer', minimum: 1 },
  },
  additionalProperties: false,
} as const;

const dataOf = <const S extends object>(data: S) =>
  ({ type: 'object', required: ['data'], properties: { data }, additionalProperties: false }) as const;

export const edgeRoutes = [
  {
    ...route,
    operationId: 'listEdges',
    permission: 'site:view',
    method: 'GET',
    path: `${edges}/`,
    summary: "A page of the table's graph edges, oldest first, optionally of one node or type",
    query: {
      type: 'object',
      properties: {
        page: { type: 'integer', minimum: 1, maximum: recordPage.maxPage, default: 1 },
        page_size: {
          type: 'integer',
          minimum: 1,
          maximum: recordPage.maxSize,
          default: recordPage.defaultSize,
        },
        ...selection,
      },
      additionalProperties: false,
    },
    responses: { 200: json('A page of edges', edgeList), ...errors(400, 401, 403, 404, 409, 422) },
  },
  {
    ...route,
    operationId: 'createEdges',
    permission: 'site:change',
    method: 'POST',
    path: `${edges}/`,
    summary: 'Create an edge, or several from an array, all or nothing',
    body: {
      anyOf: [edgeBody, { type: 'array', minItems: 1, maxItems: maxBulkEdges, items: edgeBody }],
    },
    responses: {
      201: json('The new edge, or the new edges', {
        anyOf: [dataOf(edge), dataOf({ type: 'array', items: edge })],
      }),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'updateEdge',
    permission: 'site:change',
    method: 'PATCH',
    path: `${edges}/{edge_id}/`,
    summary: "Replace an edge's from, to, type and metadata",
    body: edgeBody,
    responses: { 200: json('The changed edge', dataOf(edge)), ...errors(400, 401, 403, 404, 409, 422) },
  },
  {
    ...route,
    operationId: 'deleteEdges',
    permission: 'site:delete',
    method: 'DELETE',
    path: `${edges}/`,
    summary: 'Delete the edges of `ids`, or those matching from_id, to_id and/or type',
    query: {
      type: 'object',
      properties: {
        // Up to 1000 UUIDs, comma-separated or repeated.
        ids: {
          type: ['string', 'array'],
          maxLength: 37_000,
          maxItems: 1000,
          items: { type: 'string', maxLength: 37_000 },
        },
        ...selection,
      },
      additionalProperties: false,
    },
    responses: {
      200: json('How many edges were deleted, and which', {
        type: 'object',
        required: ['deleted', 'ids'],
        properties: {
          deleted: { type: 'integer', minimum: 0 },
          ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
        },
        additionalProperties: false,
      }),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
] as const satisfies readonly RouteDef[];
