/** The query-string parameters of the records API, in one place. */

/** Parameters of the query language that are not filters: sorting, paging, search, aggregation, populate. */
export const queryParameters: ReadonlySet<string> = new Set([
  'page',
  'page_size',
  '_start',
  '_end',
  'limit',
  'offset',
  '_sort',
  '_order',
  'ordering',
  'search',
  'populate',
  '_aggregate',
  '_group_by',
  '_having',
]);

/** Parameters the records API reads: every other parameter of a list is a field filter. */
export const controlParameters: ReadonlySet<string> = new Set([
  ...queryParameters,
  'include_deleted',
  'only_deleted',
  'hard_delete',
  'ids',
  'filter',
  'unique_fields',
]);

/**
 * Every parameter name the records API has or will have (the graph adds the rest): no field may take one of these
 * names, or it could never be filtered by `name=value`.
 */
export const reservedParameters: ReadonlySet<string> = new Set([
  ...controlParameters,
  'include',
  'depth',
  'format',
  'relationship_type',
  'graph_types',
]);
