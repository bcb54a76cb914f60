export { type Client, createClient } from './client.js';
export {
  ApiError,
  DataError,
  DetailError,
  type Envelope,
  EventsError,
  type FieldErrors,
  RolesError,
  SecretsError,
} from './core/errors.js';
export {
  type Auth,
  type ClientOptions,
  ok,
  type RawClient,
  type RetryOptions,
  type SignedIn,
  type TokenPair,
  type Transport,
} from './core/transport.js';
export type { paths } from './generated/openapi.generated.js';
export * from './resources/filters.js';
export * from './resources/operators.js';
export type {
  Aggregate,
  AggregateQuery,
  Edge,
  GraphQuery,
  ListQuery,
  Page,
  Paging,
  SearchHit,
  Sort,
  TreeNode,
} from './resources/queries.js';
export * from './resources/table.js';
export * from './resources/tables.js';
