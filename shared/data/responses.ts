/** Response schemas of the data group (doc 3). Records are loose: their fields are the tenant's table schema. */

const dateTime = { type: 'string', format: 'date-time' } as const;

/** A record: `id` and the system fields, then whatever the table's schema declares. */
export const record = { type: 'object', additionalProperties: true } as const;

export const tableView = {
  type: 'object',
  required: ['name', 'app', 'description', 'schema', 'version', 'created_at', 'updated_at'],
  properties: {
    name: { type: 'string' },
    app: { type: 'string' },
    description: { type: 'string' },
    schema: { type: 'object', required: ['fields'], additionalProperties: true },
    version: { type: 'integer' },
    created_at: dateTime,
    updated_at: dateTime,
  },
  additionalProperties: false,
} as const;

/** `{data}`: one table or record. */
export function dataOf<const S extends object>(data: S) {
  return { type: 'object', required: ['data'], properties: { data }, additionalProperties: false } as const;
}

export const tableList = {
  type: 'object',
  required: ['data', 'total'],
  properties: { data: { type: 'array', items: tableView }, total: { type: 'integer', minimum: 0 } },
  additionalProperties: false,
} as const;

const count = { type: 'integer', minimum: 0 } as const;

/** A list: `data`, `total` (every match), then `page` and `page_size`, or `meta` for offset paging. */
export const recordPageBody = {
  type: 'object',
  required: ['data', 'total'],
  properties: {
    data: { type: 'array', items: record },
    total: count,
    page: { type: 'integer', minimum: 1 },
    page_size: { type: 'integer', minimum: 1 },
    meta: {
      type: 'object',
      required: ['offset', 'limit', 'count', 'has_more'],
      properties: { offset: count, limit: count, count, has_more: { type: 'boolean' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** Aggregation without grouping: `{data: [], aggregates: {count, sum_price, ...}}`. */
export const aggregatesBody = {
  type: 'object',
  required: ['data', 'aggregates'],
  properties: {
    data: { type: 'array', maxItems: 0 },
    aggregates: { type: 'object', additionalProperties: true },
  },
  additionalProperties: false,
} as const;

/** `format=graph`: the records reached and the edges walked. */
export const graphBody = {
  type: 'object',
  required: ['data', 'total'],
  properties: {
    data: {
      type: 'object',
      required: ['nodes', 'edges'],
      properties: {
        nodes: { type: 'array', items: record },
        edges: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'from', 'to', 'type', 'metadata'],
            properties: {
              id: { type: 'string' },
              from: { type: ['string', 'integer'] },
              to: { type: ['string', 'integer'] },
              type: { type: 'string' },
              metadata: { type: ['object', 'null'] },
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    total: count,
  },
  additionalProperties: false,
} as const;

/** `format=tree`: the root records, each with `children`. */
export const treeBody = {
  type: 'object',
  required: ['data', 'total'],
  properties: { data: { type: 'array', items: record }, total: count },
  additionalProperties: false,
} as const;

/** One record, with its relatives under the labels of their types when `include` asks for them. */
export const recordWithRelatives = {
  type: 'object',
  required: ['data'],
  properties: { data: record },
  additionalProperties: { type: 'array', items: record },
} as const;

/** GET of one record: the record (and its relatives), its tree or its graph. */
export const recordRead = { anyOf: [recordWithRelatives, treeBody, graphBody] } as const;

/** The list route's answers: a page of records (grouped aggregates too: one row per group), aggregates, a graph. */
export const recordListBody = { anyOf: [recordPageBody, aggregatesBody, graphBody] } as const;

const records = { type: 'array', items: record } as const;

/** One record: the spec's `{status, message, data}`; an array: `{data: [...]}`. */
export const createdRecords = {
  anyOf: [
    {
      type: 'object',
      required: ['status', 'message', 'data'],
      properties: { status: { const: 'success' }, message: { type: 'string' }, data: record },
      additionalProperties: false,
    },
    dataOf(records),
  ],
} as const;

/** By keys: `{data: [...]}`; by filters: `{data: [...], total}`. */
export const updatedRecords = {
  type: 'object',
  required: ['data'],
  properties: { data: records, total: { type: 'integer', minimum: 0 } },
  additionalProperties: false,
} as const;

/** For one record, `data` and `created` are single; for an array, arrays in the request's order. */
export const upserted = {
  type: 'object',
  required: ['data', 'created'],
  properties: {
    data: { anyOf: [record, records] },
    created: { anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'boolean' } }] },
  },
  additionalProperties: false,
} as const;

/** How many records were deleted; by `ids`, also which. */
export const deleted = {
  type: 'object',
  required: ['deleted'],
  properties: { deleted: { type: 'integer', minimum: 0 }, ids: { type: 'array' } },
  additionalProperties: false,
} as const;
