/**
 * The platform's error taxonomy. Every error a client can cause is an AppError with an HTTP status and a stable
 * machine `code`; anything else is unexpected and becomes a 500 with a request id. Each endpoint group turns an
 * AppError into the envelope its spec section shows (see shared/http/envelopes.ts).
 *
 * Every constructor takes one details object (`{ code, message, ... }`), so arguments can never be passed in the
 * wrong order, and each class supplies the defaults of its status.
 */
export type FieldErrors = Record<string, string[]>;

export interface ErrorDetails {
  /** The stable machine code clients branch on. */
  code?: string | undefined;
  /** The human message. */
  message?: string | undefined;
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

/** What a class fills in when its caller leaves it out. */
interface Defaults {
  code: string;
  message: string;
  title?: string;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  readonly code: string;
  readonly fields: FieldErrors | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly title: string | undefined;
  readonly body: unknown;

  constructor(status: number, details: ErrorDetails & { code: string; message: string }) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = status;
    this.code = details.code;
    this.fields = details.fields;
    this.extra = details.extra;
    this.title = details.title;
    this.body = details.body;
  }
}

function withDefaults(
  details: ErrorDetails,
  defaults: Defaults,
): ErrorDetails & { code: string; message: string } {
  return {
    ...details,
    code: details.code ?? defaults.code,
    message: details.message ?? defaults.message,
    title: details.title ?? defaults.title,
  };
}

export class ValidationError extends AppError {
  override name = 'ValidationError';
  constructor(details: ErrorDetails & { fields: FieldErrors }) {
    super(
      400,
      withDefaults(details, {
        code: 'validation_error',
        message: 'Validation failed',
        title: 'Validation failed',
      }),
    );
  }

  /** A validation error about one field. */
  static field(field: string, message: string, code = 'validation_error'): ValidationError {
    return new ValidationError({ fields: { [field]: [message] }, message, code });
  }
}

export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  constructor(details: ErrorDetails & { code: string; message: string }) {
    super(400, details);
  }
}

export class AuthenticationError extends AppError {
  override name = 'AuthenticationError';
  constructor(details: ErrorDetails = {}) {
    super(
      401,
      withDefaults(details, {
        code: 'not_authenticated',
        message: 'Authentication credentials were not provided.',
        title: 'Authentication required',
      }),
    );
  }
}

export class PermissionDeniedError extends AppError {
  override name = 'PermissionDeniedError';
  constructor(details: ErrorDetails = {}) {
    super(
      403,
      withDefaults(details, {
        code: 'permission_denied',
        message: 'You do not have permission to perform this action.',
        title: 'Permission denied',
      }),
    );
  }
}

export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  constructor(details: ErrorDetails = {}) {
    super(404, withDefaults(details, { code: 'not_found', message: 'Not found.', title: 'Not found' }));
  }
}

export class MethodNotAllowedError extends AppError {
  override name = 'MethodNotAllowedError';
  readonly allowed: string[];
  constructor(details: { allowed: string[] }) {
    super(405, { code: 'method_not_allowed', message: 'Method not allowed.', title: 'Method not allowed' });
    this.allowed = details.allowed;
  }
}

export class ConflictError extends AppError {
  override name = 'ConflictError';
  constructor(details: ErrorDetails & { code: string; message: string }) {
    super(409, withDefaults(details, { code: 'conflict', message: 'Conflict.', title: 'Conflict' }));
  }
}

export class GoneError extends AppError {
  override name = 'GoneError';
  constructor(details: ErrorDetails & { message: string }) {
    super(410, withDefaults(details, { code: 'gone', message: 'Gone.', title: 'Gone' }));
  }
}

export class TooManyRequestsError extends AppError {
  override name = 'TooManyRequestsError';
  constructor(details: { retryAfterSeconds: number }) {
    super(429, {
      code: 'rate_limited',
      message: 'Request was throttled.',
      title: 'Too many requests',
      extra: { retry_after: details.retryAfterSeconds },
    });
  }
}
