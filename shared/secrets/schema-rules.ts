/**
 * What a secret type's schema may be (docs/secrets.md, "Schemas"). A schema is a tenant's input that the platform
 * compiles into code and runs on every value, so it is checked before ajv sees it:
 *
 * - no `$id` anywhere, and every `$ref` is a local JSON pointer (`#` or `#/...`) to a schema of the same document:
 *   a schema can never name, reach or claim another schema (another type's, another tenant's, a meta-schema);
 * - its local references form no cycle: validation cannot recurse without end;
 * - bounded size: bytes of its JSON, nesting depth, and subschemas counted with each `$ref` as a copy of its target
 *   (what ajv's generated code and a validation's work grow with; a chain of references doubling at each step is
 *   refused however small its text);
 * - `uniqueItems: true` only beside a `maxItems` bound (comparing items costs the square of their number).
 */
export const schemaLimits = {
  /** Bytes of the schema's JSON (UTF-8). */
  bytes: 64 * 1024,
  /** Nesting levels of the schema's JSON (an object or array inside another is one level deeper). */
  depth: 32,
  /** Subschemas, each `$ref` counted as a copy of the schema it points at. */
  subschemas: 128,
  /** The largest `maxItems` a schema with `uniqueItems: true` may have. */
  uniqueItemsMaxItems: 100,
} as const;

/** Keywords whose value is one schema. */
const schemaKeywords = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;
/** Keywords whose value is an array of schemas (`items` may also be one schema). */
const schemaListKeywords = ['allOf', 'anyOf', 'oneOf', 'items', 'prefixItems'] as const;
/** Keywords whose value maps names to schemas (`dependencies` may also map to a list of names). */
const schemaMapKeywords = [
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependencies',
  'dependentSchemas',
] as const;

/** How a message names a subschema. */
const where = (pointer: string) => (pointer ? `"#${pointer}"` : 'the schema');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON pointer token, escaped (`~` as `~0`, `/` as `~1`). */
const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON nesting depth of a value, stopping as soon as it passes `limit` (so a deep value costs no more). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

interface Walked {
  /** Every subschema by its canonical pointer (`''` is the root). */
  schemas: Map<string, unknown>;
  /** The pointers of the subschemas directly inside each subschema. */
  children: Map<string, string[]>;
  /** The canonical pointer each `$ref` points at, by the pointer of the subschema holding it. */
  refs: Map<string, string>;
}

/** Why a `$ref` cannot be used, or the canonical pointer it names. */
function refTarget(ref: unknown): { pointer: string } | { problem: string } {
  if (typeof ref !== 'string') return { problem: 'a $ref must be a string' };
  if (ref !== '#' && !ref.startsWith('#/'))
    return {
      problem: `"$ref": "${ref.slice(0, 100)}" is not allowed: a $ref must be a JSON pointer into the same schema ("#" or "#/...")`,
    };
  let tokens: string[];
  try {
    tokens = ref === '#' ? [] : decodeURIComponent(ref.slice(2)).split('/');
  } catch {
    return { problem: `"$ref": "${ref.slice(0, 100)}" is not a valid JSON pointer` };
  }
  const pointer = tokens.map((token) => `/${escapeToken(token.replace(/~1/g, '/').replace(/~0/g, '~'))}`);
  return { pointer: pointer.join('') };
}

function walk(root: unknown): Walked | { problem: string } {
  const walked: Walked = { schemas: new Map(), children: new Map(), refs: new Map() };
  const pending: Array<[string, unknown]> = [['', root]];
  while (pending.length > 0) {
    const [pointer, schema] = pending.pop() as [string, unknown];
    if (walked.schemas.size >= schemaLimits.subschemas * 4)
      return { problem: `a schema may hold at most ${schemaLimits.subschemas} subschemas` };
    walked.schemas.set(pointer, schema);
    const inside: string[] = [];
    walked.children.set(pointer, inside);
    if (typeof schema === 'boolean') continue;
    if (!isObject(schema)) return { problem: `${where(pointer)} must be an object or a boolean` };
    const add = (at: string, child: unknown) => {
      inside.push(at);
      pending.push([at, child]);
    };
    if ('$id' in schema)
      return {
        problem: `${where(pointer)} has an $id: identifiers are not allowed (use "#/definitions/..." references inside the schema)`,
      };
    if ('$ref' in schema) {
      const target = refTarget(schema.$ref);
      if ('problem' in target) return target;
      walked.refs.set(pointer, target.pointer);
    }
    if (schema.uniqueItems === true) {
      const max = schema.maxItems;
      if (typeof max !== 'number' || max > schemaLimits.uniqueItemsMaxItems)
        return {
          problem: `${where(pointer)} has uniqueItems: it needs "maxItems" of at most ${schemaLimits.uniqueItemsMaxItems} beside it`,
        };
    }
    for (const keyword of schemaKeywords)
      if (keyword in schema) add(`${pointer}/${keyword}`, schema[keyword]);
    for (const keyword of schemaListKeywords) {
      if (!(keyword in schema)) continue;
      const list = schema[keyword];
      if (Array.isArray(list)) {
        for (const [index, child] of list.entries()) add(`${pointer}/${keyword}/${index}`, child);
      } else if (keyword === 'items') add(`${pointer}/items`, list);
      else return { problem: `${where(`${pointer}/${keyword}`)} must be an array of schemas` };
    }
    for (const keyword of schemaMapKeywords) {
      if (!(keyword in schema)) continue;
      const map = schema[keyword];
      if (!isObject(map)) return { problem: `${where(`${pointer}/${keyword}`)} must be an object` };
      for (const [name, child] of Object.entries(map)) {
        // `dependencies` may also list property names.
        if (keyword === 'dependencies' && Array.isArray(child)) continue;
        add(`${pointer}/${keyword}/${escapeToken(name)}`, child);
      }
    }
  }
  return walked;
}

/**
 * The subschemas a validation may go through, each `$ref` expanded: finds reference cycles on the way (a depth-first
 * walk over "contains" and "refers to"; the containment tree alone has none) and stops past `limit`.
 */
function expandedSize(walked: Walked, limit: number): { size: number } | { problem: string } {
  const size = new Map<string, number>();
  const onPath = new Set<string>();
  const visit = (pointer: string): number | string => {
    const known = size.get(pointer);
    if (known !== undefined) return known;
    if (onPath.has(pointer))
      return `${where(pointer)} refers back to itself through $ref: recursive schemas are not allowed`;
    onPath.add(pointer);
    let total = 1;
    const next = [...(walked.children.get(pointer) ?? [])];
    const ref = walked.refs.get(pointer);
    if (ref !== undefined) {
      if (!walked.schemas.has(ref)) return `"$ref": "#${ref}" does not point at a schema of this document`;
      next.push(ref);
    }
    for (const child of next) {
      const counted = visit(child);
      if (typeof counted === 'string') return counted;
      total += counted;
      if (total > limit) break;
    }
    onPath.delete(pointer);
    size.set(pointer, total);
    return total;
  };
  const counted = visit('');
  return typeof counted === 'string' ? { problem: counted } : { size: counted };
}

/** Why a type's schema is refused (a sentence for the `schema` field), or undefined when it may be compiled. */
export function schemaProblem(schema: unknown): string | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(schema) ?? '', 'utf8');
  if (bytes > schemaLimits.bytes)
    return `The schema is ${bytes} bytes of JSON; at most ${schemaLimits.bytes} are allowed.`;
  if (deeperThan(schema, schemaLimits.depth))
    return `The schema is nested more than ${schemaLimits.depth} levels deep.`;
  const walked = walk(schema);
  if ('problem' in walked) return `${capitalize(walked.problem)}.`;
  const expanded = expandedSize(walked, schemaLimits.subschemas);
  if ('problem' in expanded) return `${capitalize(expanded.problem)}.`;
  if (expanded.size > schemaLimits.subschemas)
    return `The schema has more than ${schemaLimits.subschemas} subschemas (each $ref counts as a copy of what it points at).`;
  return undefined;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
