import { envelopes } from '../generated/envelopes.generated.js';

/** The error envelopes of the API: each endpoint group answers errors in one of these shapes. */
export type Envelope = 'detail' | 'roles' | 'secrets' | 'data' | 'events';

/** Messages by field name (`a.b` for nested fields, `<index>.<field>` in bulk requests). */
export type FieldErrors = Record<string, string[]>;

/**
 * An error answer of the API. One subclass per envelope (`DetailError`, `RolesError`, `SecretsError`,
 * `DataError`, `EventsError`); all carry the HTTP status, the machine code where the envelope has one, the field
 * errors of a validation failure, the request id (the `x-request-id` header, which every answer carries), and
 * for a 429 the seconds to wait. `statusCode` and `errors` are the names refine's `HttpError` reads.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly envelope: Envelope;
  readonly status: number;
  readonly code: string | undefined;
  readonly fields: FieldErrors | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  /** The body as the API sent it. */
  readonly body: unknown;

  constructor(
    envelope: Envelope,
    details: {
      status: number;
      message: string;
      code?: string | undefined;
      fields?: FieldErrors | undefined;
      requestId?: string | undefined;
      retryAfter?: number | undefined;
      body: unknown;
    },
  ) {
    super(details.message);
    this.envelope = envelope;
    this.status = details.status;
    this.code = details.code;
    this.fields = details.fields;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
    this.body = details.body;
  }

  /** refine's `HttpError.statusCode`. */
  get statusCode(): number {
    return this.status;
  }

  /** refine's `HttpError.errors`: the field errors. */
  get errors(): FieldErrors | undefined {
    return this.fields;
  }
}

/** `{detail, code?}`; a validation error is `{<field>: [messages]}` (auth, users, organizations, sites, apps). */
export class DetailError extends ApiError {
  override name = 'DetailError';
}
/** `{error, detail, code}` (roles and memberships). */
export class RolesError extends ApiError {
  override name = 'RolesError';
}
/** `{error, detail}`, detail being text or the failing fields; `{message, field}` for a taken name (secrets). */
export class SecretsError extends ApiError {
  override name = 'SecretsError';
}
/** `{error, detail, field?}`; validation `{error: "Validation failed", details}` (data tables, records, edges). */
export class DataError extends ApiError {
  override name = 'DataError';
}
/** `{success: false, message}` (events and functions). */
export class EventsError extends ApiError {
  override name = 'EventsError';
}

const classes = {
  detail: DetailError,
  roles: RolesError,
  secrets: SecretsError,
  data: DataError,
  events: EventsError,
} as const;

/** The envelope of an operation (path template as in the OpenAPI document); `detail` when it is not known. */
export function envelopeOf(pathTemplate: string | undefined, method: string): Envelope {
  if (!pathTemplate) return 'detail';
  return envelopes[pathTemplate]?.[method.toUpperCase()] ?? guessEnvelope(pathTemplate);
}

/** For a path the client was not generated with (`custom` calls), the group its prefix belongs to. */
function guessEnvelope(path: string): Envelope {
  if (/^\/api\/apps\/[^/]+\/datatables\//.test(path)) return 'data';
  if (/^\/api\/(secrets|secret-types|tags)\//.test(path)) return 'secrets';
  if (/^\/api\/(roles|app\/|assign|revoke|users\/)/.test(path)) return 'roles';
  if (/\/events\/|\/functions\//.test(path)) return 'events';
  return 'detail';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFieldErrors(value: unknown): value is FieldErrors {
  return (
    isRecord(value) &&
    Object.keys(value).length > 0 &&
    Object.values(value).every(
      (messages) => Array.isArray(messages) && messages.every((m) => typeof m === 'string'),
    )
  );
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The typed error for an error answer: reads the body in the shape its envelope has. */
export function apiError(envelope: Envelope, response: Response, body: unknown): ApiError {
  const record = isRecord(body) ? body : {};
  const retry = Number(response.headers.get('retry-after'));
  let message: string | undefined;
  let code = text(record.code);
  let fields: FieldErrors | undefined;
  switch (envelope) {
    case 'detail':
      if (response.status === 400 && record.detail === undefined && isFieldErrors(body)) {
        fields = body;
        message = 'Validation failed';
        code ??= 'validation_error';
      } else message = text(record.detail);
      break;
    case 'roles':
      message = text(record.detail) ?? text(record.error);
      break;
    case 'secrets':
      if (isFieldErrors(record.detail)) fields = record.detail;
      else if (typeof record.field === 'string' && typeof record.message === 'string')
        fields = { [record.field]: [record.message] };
      message = text(record.detail) ?? text(record.error) ?? text(record.message);
      break;
    case 'data':
      if (isFieldErrors(record.details)) fields = record.details;
      message = text(record.detail) ?? text(record.error);
      if (message === 'Validation failed' && typeof record.detail === 'string') message = record.detail;
      break;
    case 'events':
      message = text(record.message);
      break;
  }
  const ErrorClass = classes[envelope];
  return new ErrorClass(envelope, {
    status: response.status,
    message: message ?? (typeof body === 'string' && body ? body : `HTTP ${response.status}`),
    code,
    fields,
    requestId: response.headers.get('x-request-id') ?? text(record.request_id),
    retryAfter:
      Number.isFinite(retry) && retry >= 0 && response.headers.has('retry-after') ? retry : undefined,
    body,
  });
}
