import { Ajv } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isApiDate, isApiDateTime } from '../../shared/api/datetimes';
import { timeOfDay, typeRule } from '../../shared/data/common/field-types';
import type { FieldDef, FieldType } from '../../shared/data/common/model';
import { loadPatternEngine, re2Engine } from '../../shared/data/schema/patterns';
import {
  check,
  checkValue,
  compileRecordValidators,
  fieldJsonSchema,
  hasDatabaseDefault,
  valueProblems,
} from '../../shared/data/schema/validator';
import { fieldErrors } from '../../shared/field-errors';

/**
 * Property tests run a fixed number of cases (numRuns), each limited far above what it takes on a quiet machine
 * (measured as CPU time: at most 3 s), so a busy machine slows them but never fails them.
 */
const propertyTimeout = { timeout: 60_000 };

/**
 * The record checks compiled from field definitions (shared/data/schema/value-checks.ts) against ajv compiling the same
 * JSON Schemas with the options the data group used before: every verdict and every message, in order, alike.
 */

const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;

let ajv: Ajv;
/**
 * ajv compiles each schema once: the properties below meet the same field definitions many times, and compiling is
 * most of their cost (to ajv a new schema object is a new compilation). Bounded by the cases of this file.
 */
const compiled = new Map<string, ReturnType<Ajv['compile']>>();
const compile = (schema: object) => {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
};
beforeAll(async () => {
  await loadPatternEngine();
  ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: false,
    useDefaults: false,
    code: { regExp: re2Engine },
  });
  addFormats(ajv);
  ajv.addFormat('time', timeOfDay);
  ajv.addFormat('date-time', isApiDateTime);
  ajv.addFormat('date', isApiDate);
});

const scalarTypes: FieldType[] = ['string', 'integer', 'number', 'boolean', 'date', 'time', 'datetime'];
const allTypes: FieldType[] = [...scalarTypes, 'object', 'array', 'json', 'any'];

const field = (name: string): fc.Arbitrary<FieldDef> =>
  fc
    .record(
      {
        type: fc.constantFrom(...allTypes),
        format: fc.constantFrom(undefined, 'default', 'email', 'uri', 'uuid'),
        required: fc.boolean(),
        minLength: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
        maxLength: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
        minimum: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
        maximum: fc.option(fc.integer({ min: -5, max: 10 }), { nil: undefined }),
        pattern: fc.option(fc.constantFrom('[a-c]+', 'x|y', '\\d{2}', '.*z'), { nil: undefined }),
        enumValues: fc.option(
          fc.uniqueArray(fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -3, max: 3 })), {
            minLength: 1,
            maxLength: 3,
          }),
          {
            nil: undefined,
          },
        ),
      },
      { requiredKeys: ['type', 'required'] },
    )
    .map(({ type, format, required, minLength, maxLength, minimum, maximum, pattern, enumValues }) => {
      const textual = type === 'string';
      const numeric = type === 'integer' || type === 'number';
      const constraints: FieldDef['constraints'] = { required };
      if (textual && minLength !== undefined) constraints.minLength = minLength;
      if (textual && maxLength !== undefined) constraints.maxLength = maxLength;
      if (textual && pattern !== undefined) constraints.pattern = pattern;
      if (numeric && minimum !== undefined) constraints.minimum = minimum;
      if (numeric && maximum !== undefined) constraints.maximum = maximum;
      if ((textual || numeric) && enumValues !== undefined) constraints.enum = enumValues;
      return { name, type, ...(textual && format ? { format } : {}), constraints } as FieldDef;
    });

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom('abc', 'x', '12', 'zz', 'a@b.co', 'not an email', 'https://example.com/a?b', 'rel/path'),
  fc.constantFrom(
    '2024-02-29',
    '2023-02-29',
    '12:30',
    '24:00',
    '2024-01-01T10:00:00Z',
    '2024-01-01T10:00:00',
  ),
  fc.uuid().map(String),
  fc.integer({ min: -10, max: 12 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -20, max: 20 }),
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);

const names = ['a', 'b', 'c'] as const;

describe('record checks compiled from field definitions', () => {
  it('report what ajv reports, message for message, for single values', propertyTimeout, () => {
    fc.assert(
      fc.property(field('v'), fc.boolean(), value, (def, primaryKey, input) => {
        const validate = compile({
          type: 'object',
          properties: { value: fieldJsonSchema(def, primaryKey) },
        });
        const expected = validate({ value: input }) ? [] : (fieldErrors(validate.errors ?? []).value ?? []);
        expect(checkValue(def, primaryKey, input)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  // The costliest property (two schemas compiled per case): its 2000 cases in four tests of 500.
  it.for([1, 2, 3, 4])(
    'report what ajv reports for whole records: required, unknown and invalid fields (part %i of 4)',
    propertyTimeout,
    () => {
      const records = fc.dictionary(fc.constantFrom(...names, 'extra', 'constructor2'), value, {
        maxKeys: 4,
      });
      fc.assert(
        fc.property(fc.tuple(field('a'), field('b'), field('c')), records, (fields, record) => {
          const definition = { fields, primaryKey: ['a'], uniqueKeys: [], indexes: [], foreignKeys: [] };
          const ours = compileRecordValidators(definition as never);
          const properties = Object.fromEntries(
            fields.map((def) => [def.name, fieldJsonSchema(def, def.name === 'a')]),
          );
          const required = fields
            .filter((def) => def.name === 'a' || def.constraints?.required)
            .filter((def) => !hasDatabaseDefault(def, definition as never))
            .map((def) => def.name);
          const create = compile({ type: 'object', properties, required, additionalProperties: false });
          const patch = compile({ type: 'object', properties, additionalProperties: false });
          expect(check(ours.create, record)).toEqual(
            create(record) ? undefined : fieldErrors(create.errors ?? []),
          );
          expect(check(ours.patch, record)).toEqual(
            patch(record) ? undefined : fieldErrors(patch.errors ?? []),
          );
        }),
        { numRuns: 500 },
      );
    },
  );

  it('check filter values by type and format alone', propertyTimeout, () => {
    fc.assert(
      fc.property(field('v'), value, (def, input) => {
        const validate = compile({ type: 'object', properties: { value: typeRule(def.type).json(def) } });
        const expected = validate({ value: input }) ? [] : (fieldErrors(validate.errors ?? []).value ?? []);
        expect(valueProblems(def, input)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
