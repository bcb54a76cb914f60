/**
 * The platform's error taxonomy. Every error a client can cause is an AppError with an HTTP status and a stable
 * machine `code`; anything else is unexpected and becomes a 500 with a request id. Each endpoint group turns an
 * AppError into the envelope its spec section shows (see shared/http/envelopes.ts).
 */
export type FieldErrors = Record<string, string[]>;

export interface AppErrorOptions {
  cause?: unknown;
  /** Per-field messages (validation). */
  fields?: FieldErrors | undefined;
  /** Extra body members that a spec section names for this error. */
  extra?: Record<string, unknown> | undefined;
  /** Short title used by envelopes that carry one (`error`). */
  title?: string | undefined;
  /** The exact body a spec section shows for this error; replaces the group's envelope. */
  body?: unknown;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  readonly code: string;
  readonly fields: FieldErrors | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly title: string | undefined;
  readonly body: unknown;

  constructor(status: number, code: string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.fields = options.fields;
    this.extra = options.extra;
    this.title = options.title;
    this.body = options.body;
  }
}

export class ValidationError extends AppError {
  override name = 'ValidationError';
  constructor(fields: FieldErrors, message = 'Validation failed', code = 'validation_error') {
    super(400, code, message, { fields, title: 'Validation failed' });
  }

  /** A validation error about one field. */
  static field(field: string, message: string, code = 'validation_error'): ValidationError {
    return new ValidationError({ [field]: [message] }, message, code);
  }
}

export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  constructor(code: string, message: string, options: AppErrorOptions = {}) {
    super(400, code, message, options);
  }
}

export class AuthenticationError extends AppError {
  override name = 'AuthenticationError';
  constructor(message = 'Authentication credentials were not provided.', code = 'not_authenticated') {
    super(401, code, message, { title: 'Authentication required' });
  }
}

export class PermissionDeniedError extends AppError {
  override name = 'PermissionDeniedError';
  constructor(message = 'You do not have permission to perform this action.', code = 'permission_denied') {
    super(403, code, message, { title: 'Permission denied' });
  }
}

export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  constructor(message = 'Not found.', code = 'not_found', options: AppErrorOptions = {}) {
    super(404, code, message, { title: 'Not found', ...options });
  }
}

export class MethodNotAllowedError extends AppError {
  override name = 'MethodNotAllowedError';
  readonly allowed: string[];
  constructor(allowed: string[]) {
    super(405, 'method_not_allowed', 'Method not allowed.', { title: 'Method not allowed' });
    this.allowed = allowed;
  }
}

export class ConflictError extends AppError {
  override name = 'ConflictError';
  constructor(code: string, message: string, options: AppErrorOptions = {}) {
    super(409, code, message, { title: 'Conflict', ...options });
  }
}

export class GoneError extends AppError {
  override name = 'GoneError';
  constructor(message: string, code = 'gone') {
    super(410, code, message, { title: 'Gone' });
  }
}

export class TooManyRequestsError extends AppError {
  override name = 'TooManyRequestsError';
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', 'Request was throttled.', {
      title: 'Too many requests',
      extra: { retry_after: retryAfterSeconds },
    });
  }
}
