import type { ErrorObject } from 'ajv';
import type { FieldErrors } from './errors';
import { patternMessages } from './slug';

/**
 * Field errors: messages keyed by field (`a.b` for nested fields, `non_field_errors` for the whole value), as every
 * validation error of the platform carries them (shared/errors.ts, `ValidationError`).
 */

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  return path.length > 0 ? path.join('.') : 'non_field_errors';
}

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'This field is required.';
    case 'additionalProperties':
      return 'Unknown field.';
    case 'type':
      return `Must be of type ${String(params.type).split(',').join(' or ')}.`;
    case 'minLength':
      return params.limit === 1
        ? 'This field may not be blank.'
        : `Ensure this field has at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `Ensure this field has no more than ${String(params.limit)} characters.`;
    case 'minItems':
      return `Ensure this field has at least ${String(params.limit)} items.`;
    case 'maxItems':
      return `Ensure this field has no more than ${String(params.limit)} items.`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `Ensure this value is greater than or equal to ${String(params.limit)}.`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `Ensure this value is less than or equal to ${String(params.limit)}.`;
    case 'enum':
      return `Must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'format':
      return `Must be a valid ${String(params.format)}.`;
    case 'pattern':
      return (
        patternMessages.get(String(params.pattern)) ?? `Must match the pattern ${String(params.pattern)}.`
      );
    default:
      return error.message
        ? `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`
        : 'Invalid value.';
  }
}

/**
 * An empty set of field errors without a prototype: field names come from input, and `constructor` or
 * `__proto__` must be keys like any other.
 */
export function newFieldErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

/** Turns ajv errors into messages keyed by field (`a.b` for nested fields). */
export function fieldErrors(errors: readonly ErrorObject[]): FieldErrors {
  const fields = newFieldErrors();
  for (const error of errors) {
    // `if`/`anyOf` wrappers repeat what their branches already said.
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    const field = fieldOf(error);
    const message = messageOf(error);
    const list = fields[field] ?? [];
    if (!list.includes(message)) list.push(message);
    fields[field] = list;
  }
  return fields;
}

/** One readable sentence naming every failing field, for envelopes with a single message. */
export function summarize(fields: FieldErrors): string {
  return Object.entries(fields)
    .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
    .join(' ');
}
