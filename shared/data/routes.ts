import { maxInt32 } from '../api/numbers';
import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import { edgeRoutes } from './graph/edge-routes';
import { maxOffset, recordPage } from './query/paging';
import * as schemas from './responses';
import { fieldJson, indexJson, tableSchemaJson } from './schema/format';

export { recordPage } from './query/paging';

const tables = '/api/apps/{app_slug}/datatables';
const data = `${tables}/{name}/data`;

const route = { group: 'data', scope: 'site' } as const;

/** Record bodies are checked against the table's own schema by the records service; here only their shape. */
const recordBody = { type: ['object', 'array'] } as const;

const flag = { type: 'boolean', default: false } as const;
const visibility = { include_deleted: flag, only_deleted: flag } as const;

const paging = {
  // OFFSET is (page - 1) * page_size: bounded, it stays an exact integer PostgreSQL takes.
  page: { type: 'integer', minimum: 1, maximum: recordPage.maxPage, default: 1 },
  page_size: { type: 'integer', minimum: 1, maximum: recordPage.maxSize, default: recordPage.defaultSize },
} as const;

const text = { type: 'string' } as const;

const typeNames = {
  type: ['string', 'array'],
  maxLength: 1000,
  items: { type: 'string', maxLength: 1000 },
} as const;

/** The graph parameters of reads (doc 3, Graph query parameters; docs/graph.md). */
const graphQuery = {
  include: { type: 'string', enum: ['descendants', 'ancestors', 'both'] },
  // The maximum is the server's (DATA_SERVICE_GRAPH_MAX_DEPTH): beyond it, the spec's own error body.
  depth: { type: 'integer', minimum: 0, maximum: maxInt32 },
  format: { type: 'string', enum: ['tree', 'graph'] },
  relationship_type: typeNames,
  graph_types: typeNames,
} as const;

/** The query language of lists (docs/data-tables.md): other parameters are field filters. */
const listQuery = {
  ...graphQuery,
  ...paging,
  ...visibility,
  _start: { type: 'integer', minimum: 0, maximum: maxOffset },
  _end: { type: 'integer', minimum: 0, maximum: maxOffset + recordPage.maxSize },
  limit: { type: 'integer', minimum: 1, maximum: recordPage.maxSize },
  offset: { type: 'integer', minimum: 0, maximum: maxOffset },
  _sort: text,
  _order: text,
  ordering: text,
  search: text,
  populate: text,
  _aggregate: text,
  _group_by: text,
  _having: { type: ['string', 'array'], items: text },
} as const;

/** Data tables: table schemas and records (doc 3; table schema management: docs/data-tables.md). */
export const dataRoutes = [
  {
    ...route,
    operationId: 'listDataTables',
    permission: 'site:view',
    method: 'GET',
    path: `${tables}/`,
    summary: 'The data tables of an app',
    responses: { 200: json('The tables of the app', schemas.tableList), ...errors(400, 401, 403, 404, 409) },
  },
  {
    ...route,
    operationId: 'createDataTable',
    permission: 'site:configure',
    method: 'POST',
    path: `${tables}/`,
    summary: 'Create a data table from a table schema',
    body: {
      type: 'object',
      required: ['name', 'schema'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string', maxLength: 2000 },
        schema: tableSchemaJson,
      },
      additionalProperties: false,
    },
    responses: {
      201: json('The new table', schemas.dataOf(schemas.tableView)),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...route,
    operationId: 'getDataTable',
    permission: 'site:view',
    method: 'GET',
    path: `${tables}/{name}/`,
    summary: 'A data table and its schema',
    responses: {
      200: json('The table and its schema', schemas.dataOf(schemas.tableView)),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...route,
    operationId: 'updateDataTable',
    permission: 'site:configure',
    method: 'PATCH',
    path: `${tables}/{name}/`,
    summary: "Change a data table's description or its graph (relationship types)",
    body: {
      type: 'object',
      minProperties: 1,
      properties: {
        description: { type: 'string', maxLength: 2000 },
        hierarchy: tableSchemaJson.properties.hierarchy,
        graph: tableSchemaJson.properties.graph,
      },
      additionalProperties: false,
    },
    responses: {
      200: json('The changed table', schemas.dataOf(schemas.tableView)),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...route,
    operationId: 'dropDataTable',
    permission: 'site:configure',
    method: 'DELETE',
    path: `${tables}/{name}/`,
    summary: 'Drop a data table and its records',
    responses: { 204: empty('The table and its records are gone'), ...errors(400, 401, 403, 404, 409) },
  },
  {
    ...route,
    operationId: 'addDataTableField',
    permission: 'site:configure',
    method: 'POST',
    path: `${tables}/{name}/fields/`,
    summary: 'Add a field to a data table',
    body: fieldJson,
    responses: {
      201: json('The table with its new field', schemas.dataOf(schemas.tableView)),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'dropDataTableField',
    permission: 'site:configure',
    method: 'DELETE',
    path: `${tables}/{name}/fields/{field}/`,
    summary: 'Drop a field and its values',
    responses: {
      200: json('The table without the field', schemas.dataOf(schemas.tableView)),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...route,
    operationId: 'addDataTableIndex',
    permission: 'site:configure',
    method: 'POST',
    path: `${tables}/{name}/indexes/`,
    summary: 'Add an index, unique or not',
    body: indexJson,
    responses: {
      201: json('The table with its new index', schemas.dataOf(schemas.tableView)),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'dropDataTableIndex',
    permission: 'site:configure',
    method: 'DELETE',
    path: `${tables}/{name}/indexes/{index}/`,
    summary: 'Drop an index',
    responses: {
      200: json('The table without the index', schemas.dataOf(schemas.tableView)),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...route,
    operationId: 'listRecords',
    permission: 'site:view',
    method: 'GET',
    path: `${data}/`,
    summary: 'Records matching filters, sorted and paged; full-text search, aggregation and populate',
    query: { type: 'object', properties: listQuery },
    responses: {
      200: json('A page of records, or aggregates', schemas.recordListBody),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...route,
    operationId: 'createRecords',
    permission: 'site:change',
    method: 'POST',
    path: `${data}/`,
    summary: 'Create a record, or several from an array, all or nothing',
    body: recordBody,
    responses: {
      201: json('The new record, or the new records', schemas.createdRecords),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'updateRecords',
    permission: 'site:change',
    method: 'PATCH',
    path: `${data}/`,
    summary:
      'Change records: an array of objects each with its key, or one object applied to the records the filters match',
    query: { type: 'object', properties: visibility },
    body: recordBody,
    responses: {
      200: json('The changed records', schemas.updatedRecords),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'deleteRecords',
    permission: 'site:delete',
    method: 'DELETE',
    path: `${data}/`,
    summary: 'Delete the records of `ids` or those matching `filter`',
    query: {
      type: 'object',
      properties: { hard_delete: flag, filter: { type: 'string' }, ids: { type: ['string', 'array'] } },
    },
    responses: {
      200: json('How many records were deleted', schemas.deleted),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...route,
    operationId: 'upsertRecords',
    permission: 'site:change',
    method: 'POST',
    path: `${data}/upsert/`,
    summary: 'Create or update records by the values of unique fields',
    query: { type: 'object', required: ['unique_fields'], properties: { unique_fields: {} } },
    body: recordBody,
    responses: {
      200: json('Every record existed and was updated', schemas.upserted),
      201: json('At least one record was created', schemas.upserted),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'getRecord',
    permission: 'site:view',
    method: 'GET',
    path: `${data}/{id}/`,
    summary: 'One record, with populate of its foreign keys and with its graph (relatives, tree or graph)',
    query: { type: 'object', properties: { ...visibility, ...graphQuery, populate: text } },
    responses: {
      200: json('The record, its relatives, its tree or its graph', schemas.recordRead),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'updateRecord',
    permission: 'site:change',
    method: 'PATCH',
    path: `${data}/{id}/`,
    summary: 'Change some fields of a record',
    query: { type: 'object', properties: { include_deleted: flag } },
    body: { type: 'object' },
    responses: {
      200: json('The changed record', schemas.dataOf(schemas.record)),
      ...errors(400, 401, 403, 404, 409, 422),
    },
  },
  {
    ...route,
    operationId: 'deleteRecord',
    permission: 'site:delete',
    method: 'DELETE',
    path: `${data}/{id}/`,
    summary: 'Delete a record: soft when the table has is_deleted, unless hard_delete',
    query: { type: 'object', properties: { hard_delete: flag } },
    responses: {
      204: empty('The record is deleted (or marked deleted)'),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  ...edgeRoutes,
] as const satisfies readonly RouteDef[];
