import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors';
import { summarize } from '../../shared/field-errors';
import { compileSchema } from '../../shared/http/schema-compiler';
import { useSchemaCompiler, validate } from '../../shared/http/validation';

// These schemas have no generated validator: they compile at first use, as on the local server.
useSchemaCompiler(compileSchema);

const schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 5 },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    page: { type: 'integer', minimum: 1, default: 1 },
  },
  additionalProperties: false,
};

function errorsOf(value: unknown, coerce = false) {
  try {
    validate(schema, value, coerce);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).fields;
  }
  throw new Error('expected a validation error');
}

describe('validate', () => {
  it('names every failing field', () => {
    expect(errorsOf({ extra: 1, tags: ['c'] })).toEqual({
      name: ['This field is required.'],
      extra: ['Unknown field.'],
      'tags.0': ['Must be one of: a, b.'],
    });
  });

  it('says blank for an empty required string and the limit for a long one', () => {
    expect(errorsOf({ name: '' })).toEqual({ name: ['This field may not be blank.'] });
    expect(errorsOf({ name: 'toolong' })).toEqual({
      name: ['Ensure this field has no more than 5 characters.'],
    });
  });

  it('coerces query strings and fills defaults', () => {
    const query: Record<string, unknown> = { name: 'x', page: '3', tags: 'a' };
    validate(schema, query, true);
    expect(query).toEqual({ name: 'x', page: 3, tags: ['a'] });
    const defaults: Record<string, unknown> = { name: 'x' };
    validate(schema, defaults, true);
    expect(defaults.page).toBe(1);
  });

  it('does not coerce JSON bodies', () => {
    expect(errorsOf({ name: 'x', page: '3' })).toEqual({ page: ['Must be of type integer.'] });
  });
});

describe('summarize', () => {
  it('joins field names and messages into one sentence', () => {
    expect(summarize({ a: ['Bad.'], b: ['Worse.', 'Worst.'] })).toBe('a: Bad. b: Worse. Worst.');
  });
});

describe('validate type messages', () => {
  it('names every allowed type in words', () => {
    try {
      validate({ type: 'object', properties: { age: { type: ['integer', 'null'] } } }, { age: 'x' });
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).fields).toEqual({ age: ['Must be of type integer or null.'] });
    }
  });
});
