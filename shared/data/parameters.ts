/** The query-string parameters of the records API, in one place. */

/** Parameters the records API reads today: every other parameter of a list is a field filter. */
export const controlParameters: ReadonlySet<string> = new Set([
  'page',
  'page_size',
  'include_deleted',
  'only_deleted',
  'hard_delete',
  'ids',
  'filter',
  'unique_fields',
]);

/**
 * Every parameter name the records API has or will have (the query language and the graph add the rest): no field
 * may take one of these names, or it could never be filtered by `name=value`.
 */
export const reservedParameters: ReadonlySet<string> = new Set([
  ...controlParameters,
  'ordering',
  'search',
  'populate',
  'include',
  'depth',
  'format',
  'relationship_type',
  'graph_types',
]);
