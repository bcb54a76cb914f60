import fc from 'fast-check';
import type { JsonSchema, RouteDef } from '../../shared/api/route';

/**
 * fast-check generators for the fuzz suite: request bodies and query strings derived loosely from a route's JSON
 * Schemas, mixed with hostile keys and values. Loosely on purpose: most cases are near-valid, so they get past
 * validation into the operations, and the rest probe the validation itself.
 */

/** Strings that have broken parsers, SQL builders and prototype lookups elsewhere. */
export const hostileStrings = [
  '',
  ' ',
  "'; DROP TABLE users; --",
  "' OR '1'='1",
  '" OR ""="',
  '1; SELECT pg_sleep(5)',
  '$1',
  '%',
  '_',
  '\\',
  '\\x00',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '😀',
  'é\u0301',
  '\u202e',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '../../etc/passwd',
  '%2e%2e%2f',
  '$' + '{7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'null',
  'true',
  '1e999',
  '-0',
  'NaN',
  'Infinity',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.9999999Z',
  'x'.repeat(5000),
] as const;

const hostileNumbers = [
  0,
  -0,
  -1,
  1.5,
  2 ** 31,
  2 ** 53 + 1,
  // Integers beyond 2^53 - 1, which the DynamoDB marshaller refuses (issue 36): a schema's maximum must stop them.
  9007199254740994,
  -9007199254740994,
  1e20,
  -(2 ** 63),
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e308,
] as const;

/** Keys that name prototype members, operators or nothing in particular. */
export const hostileKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  '$where',
  '$gt',
  'id',
  'is_superuser',
  'site',
  'organization',
  '',
  ' ',
  '\u0000',
  '\ud800',
  'a.b',
  'a[b]',
  "x'); DROP TABLE t; --",
  'k'.repeat(300),
] as const;

/** A value nested `levels` deep (arrays or objects). */
function nested(levels: number, inObjects: boolean): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = inObjects ? { a: value } : [value];
  return value;
}

/** Any hostile value: odd strings, odd numbers, deep nesting, wrong types. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...hostileStrings),
  fc.constantFrom(...hostileNumbers),
  fc.constantFrom(null, true, false, [], {}, [null], { '': null }),
  fc.constantFrom(nested(63, false), nested(65, false), nested(70, true), nested(200, true)),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.bigInt().map((value) => Number(value)),
);

/** An object with these entries as own properties, even `__proto__` (a plain assignment would set the prototype). */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

const extraEntries = fc.array(
  fc.tuple(fc.oneof(fc.constantFrom(...hostileKeys), fc.string()), hostileValue),
  {
    maxLength: 3,
  },
);

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  return typeof type === 'string' ? [type] : [];
}

function objectFromSchema(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const known = Object.entries(properties).map(([key, sub]) =>
    fc.option(
      fromSchema(sub, depth + 1).map((value) => [key, value] as [string, unknown]),
      { freq: 3, nil: undefined },
    ),
  );
  return fc
    .tuple(fc.tuple(...known), fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, extraEntries))
    .map(([entries, extra]) =>
      objectOf([...entries.filter((entry): entry is [string, unknown] => entry !== undefined), ...extra]),
    );
}

function leafFromType(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return fc.oneof(
        { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
        fc.constantFrom(...hostileStrings),
      );
    case 'integer':
      return fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: -5, max: 1000 }) },
        fc.integer(),
        fc.constantFrom(9007199254740994, -9007199254740994, 1e20, 2 ** 63),
      );
    case 'number':
      return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema((schema.items ?? {}) as JsonSchema, depth + 1), { maxLength: 4 });
    case 'object':
      return objectFromSchema(schema, depth);
    default:
      return hostileValue;
  }
}

/** A value loosely shaped by a JSON Schema: usually its types and enums, sometimes anything hostile. */
export function fromSchema(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4) return hostileValue;
  const options: fc.Arbitrary<unknown>[] = [];
  if (Array.isArray(schema.enum)) options.push(fc.constantFrom(...(schema.enum as unknown[])));
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const)
    if (Array.isArray(schema[key]))
      for (const sub of schema[key] as JsonSchema[]) options.push(fromSchema(sub, depth + 1));
  for (const type of typesOf(schema)) options.push(leafFromType(type, schema, depth));
  if (options.length === 0 && schema.properties) options.push(objectFromSchema(schema, depth));
  if (options.length === 0) options.push(fc.anything({ maxDepth: 2 }));
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...options) }, { weight: 1, arbitrary: hostileValue });
}

/** Record bodies are checked against the table's own schema, not the route's: shape them like its records. */
function bodySchemaOf(route: RouteDef, recordSchema: JsonSchema): JsonSchema | undefined {
  const body = route.body;
  if (!body || route.group !== 'data') return body;
  const types = typesOf(body);
  if (types.includes('array') && types.includes('object'))
    return { type: ['object', 'array'], properties: recordSchema.properties, items: recordSchema };
  if (types.length === 1 && types[0] === 'object' && !body.properties) return recordSchema;
  return body;
}

/** Raw bodies no serializer would write: truncated, overdeep, overlarge, and not JSON at all. */
const rawBodies = [
  '',
  '{',
  '{"a":',
  '[]',
  'null',
  'true',
  '"text"',
  '1e999',
  '{"a":1e999}',
  '{"a":"\\ud800"}',
  '{"\\ud800":1}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"is_superuser":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `{"a":${'9'.repeat(400)}}`,
  `${'['.repeat(65)}${']'.repeat(65)}`,
  '['.repeat(100_000),
  `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
  '{"a":1,"a":2}',
  '\ufeff{}',
  'a=1&b=2',
];

/** What a fuzz case sends. */
export interface FuzzRequest {
  query: string;
  body: string | Uint8Array | undefined;
  contentType: string | undefined;
  site: string | undefined;
}

const contentTypes = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'application/json; charset=utf-16',
    'multipart/form-data; boundary=x',
  ),
);

const rawQueries = [
  '%00',
  '%',
  '%ZZ',
  '&&&',
  '=x',
  'a[b]=1',
  'page=1&page=2',
  'page=-1',
  'page=1e3',
  'page=99999999999999999999',
  'page_size=0',
  'page_size=1001',
  'ids=1,2,3',
  'ids=%00',
  `filter=${encodeURIComponent('{"title":{"$gt":""}}')}`,
  `filter=${encodeURIComponent('{"title":"x\' OR 1=1 --"}')}`,
  `filter=${encodeURIComponent(`${'['.repeat(80)}${']'.repeat(80)}`)}`,
  `${'x'.repeat(5000)}=1`,
  `search=${'y'.repeat(10_000)}`,
  '__proto__=1',
  'constructor=1',
  'ordering=-__proto__',
  'unique_fields=__proto__',
];

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encodes any string; a lone surrogate becomes the invalid UTF-8 bytes a careless client would send. */
export function encodeLoosely(text: string): string {
  return encodeURIComponent(text.replace(loneSurrogate, '\uffff')).replaceAll('%EF%BF%BF', '%ED%A0%80');
}

function queryOf(route: RouteDef, recordSchema: JsonSchema): fc.Arbitrary<string> {
  const properties = {
    ...((route.query?.properties ?? {}) as Record<string, JsonSchema>),
    ...(route.group === 'data' ? (recordSchema.properties as Record<string, JsonSchema>) : {}),
  };
  const key = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...Object.keys(properties), 'page') },
    fc.constantFrom(...hostileKeys),
    fc.string({ maxLength: 10 }),
  );
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
    fc.integer().map(String),
    fc.constantFrom('9007199254740994', '1e20', '-9007199254740994', '99999999999999999999'),
    fc.constantFrom(...hostileStrings),
  );
  const pair = fc.tuple(key, value).map(([name, text]) => `${encodeLoosely(name)}=${encodeLoosely(text)}`);
  return fc
    .tuple(fc.array(pair, { maxLength: 4 }), fc.option(fc.constantFrom(...rawQueries), { freq: 3 }))
    .map(([pairs, raw]) => [...pairs, ...(raw ? [raw] : [])].join('&'));
}

/** JSON text that keeps lone surrogates and U+0000 as escapes, as a hostile client would send them. */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '{}';
  }
}

const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]);

/** Requests for one route: a query string, a body (usually JSON from the schema), a media type, the site header. */
export function requestsFor(
  route: RouteDef,
  recordSchema: JsonSchema,
  site: string,
): fc.Arbitrary<FuzzRequest> {
  const schema = bodySchemaOf(route, recordSchema) ?? { type: 'object' };
  const body: fc.Arbitrary<string | Uint8Array | undefined> = fc.oneof(
    { weight: 8, arbitrary: fromSchema(schema).map(jsonText) },
    { weight: 2, arbitrary: fc.constantFrom(...rawBodies) },
    fc.constant(invalidUtf8),
    fc.constant(undefined),
  );
  const siteHeader = fc.oneof(
    { weight: 12, arbitrary: fc.constant(site) },
    fc.constantFrom(undefined, '', ' ', 'missing-site', site.toUpperCase(), '../x', 's'.repeat(400), '%00'),
  );
  return fc.record({
    query: queryOf(route, recordSchema),
    body,
    contentType: contentTypes,
    site: siteHeader,
  });
}
