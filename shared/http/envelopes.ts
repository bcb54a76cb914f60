import type { EnvelopeStyle } from '../api/route';
import { type AppError, MethodNotAllowedError } from '../errors';
import { summarize } from '../field-errors';

/**
 * Error bodies, one mapping per envelope style: the specs show several, and each endpoint group uses one.
 *   detail  — doc 1: `{detail}`; validation: `{<field>: [messages]}`
 *   roles   — doc 2 roles: `{error, detail, code}`
 *   secrets — doc 2 secret store: `{error, detail}`
 *   data    — doc 3 records: `{error: 'Validation failed', details}`, `{error, detail, field}`
 *   events  — doc 3 events: `{success: false, message}`
 * An error that carries its own spec-shown `body` is sent as it is.
 */
export function errorBody(style: EnvelopeStyle, error: AppError): unknown {
  if (error.body !== undefined) return error.body;
  const fields = error.fields;
  const extra = error.extra ?? {};
  switch (style) {
    case 'detail':
      if (fields && error.status === 400) return fields;
      return { detail: error.message, ...extra };
    case 'roles':
      return {
        error: error.title ?? error.message,
        detail: fields ? summarize(fields) : error.message,
        code: error.code,
        ...extra,
      };
    case 'secrets':
      if (fields) return { error: 'Schema validation failed', detail: fields, ...extra };
      return { error: error.title ?? error.message, detail: error.message, ...extra };
    case 'data':
      if (fields) return { error: 'Validation failed', details: fields, ...extra };
      return { error: error.title ?? error.message, detail: error.message, ...extra };
    case 'events':
      return { success: false, message: error.message, ...extra };
  }
}

/** The body of an unexpected error: generic, with the request id, never a stack trace or SQL. */
export function internalErrorBody(style: EnvelopeStyle, requestId: string): unknown {
  const message = 'A server error occurred.';
  switch (style) {
    case 'detail':
      return { detail: message, request_id: requestId };
    case 'roles':
      return {
        error: 'Internal server error',
        detail: message,
        code: 'internal_error',
        request_id: requestId,
      };
    case 'secrets':
    case 'data':
      return { error: 'Internal server error', detail: message, request_id: requestId };
    case 'events':
      return { success: false, message, request_id: requestId };
  }
}

export function errorHeaders(error: AppError): Record<string, string> {
  if (error instanceof MethodNotAllowedError) return { allow: error.allowed.join(', ') };
  const retry = error.extra?.retry_after;
  return typeof retry === 'number' ? { 'retry-after': String(retry) } : {};
}
