export {
  type Auth,
  type Client,
  type ClientOptions,
  createClient,
  ok,
  type RawClient,
  type RetryOptions,
  type SignedIn,
  type TokenPair,
} from './client';
export {
  ApiError,
  DataError,
  DetailError,
  type Envelope,
  EventsError,
  type FieldErrors,
  RolesError,
  SecretsError,
} from './errors';
export * from './filters';
export type { paths } from './generated/openapi.generated';
export * from './tables';
