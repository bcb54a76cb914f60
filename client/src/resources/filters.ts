/**
 * The filter operators of the records API and a typed builder that can only produce them. The lists mirror the
 * server's operator table; test/client/operators.test.ts fails when they differ.
 */

/** Operators on any comparable value and on JSON paths. */
export const valueOperators = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'ins',
  'nin',
  'ina',
  'nina',
  'between',
  'nbetween',
  'null',
  'nnull',
] as const;

/** Text operators: the bare and `n` forms ignore case, the `s` suffix is case-sensitive, `i` forms are aliases. */
export const textOperators = [
  'contains',
  'ncontains',
  'icontains',
  'nicontains',
  'containss',
  'ncontainss',
  'startswith',
  'nstartswith',
  'istartswith',
  'nistartswith',
  'startswiths',
  'nstartswiths',
  'endswith',
  'nendswith',
  'iendswith',
  'niendswith',
  'endswiths',
  'nendswiths',
] as const;

/** Operators on a whole JSON field (`contains` there is JSON containment). */
export const jsonOperators = ['contained_by', 'has_key', 'has_any_keys', 'has_all_keys'] as const;

export type ValueOperator = (typeof valueOperators)[number];
export type TextOperator = (typeof textOperators)[number];
export type JsonOperator = (typeof jsonOperators)[number];
export type FilterOperator = ValueOperator | TextOperator | JsonOperator;

/** Every operator a filter may carry. */
export const filterOperators: readonly FilterOperator[] = [
  ...valueOperators,
  ...textOperators,
  ...jsonOperators,
];
const known = new Set<string>(filterOperators);

type ListOperator = 'in' | 'ins' | 'nin' | 'ina' | 'nina';
type Scalar = string | number | boolean | Date;

/** What each operator takes, for a field whose values are `V`. */
export type Operand<O extends FilterOperator, V> = O extends ListOperator
  ? readonly V[]
  : O extends 'between' | 'nbetween'
    ? readonly [V, V]
    : O extends 'null' | 'nnull'
      ? boolean
      : O extends 'contains'
        ? V extends string
          ? string
          : unknown
        : O extends TextOperator | 'has_key'
          ? string
          : O extends 'has_any_keys' | 'has_all_keys'
            ? readonly string[]
            : O extends 'contained_by'
              ? unknown
              : V;

/** Conditions on one field: `{gte: 10, lt: 20}`. */
export type FieldCondition<V> = { [O in FilterOperator]?: Operand<O, NonNullable<V>> };

/**
 * Filters as an object: `{status: 'draft', pages: {gte: 100}, title: {contains: 'dune'}}`. A plain value is
 * equality (`null`: no value); an object is a set of conditions keyed by operator. All combine with AND.
 */
export type Where<T> = { [K in keyof T & string]?: (T[K] & Scalar) | null | FieldCondition<T[K]> };

/** A record type when none is given: any field. */
export type AnyRecord = Record<string, unknown>;

function text(value: unknown, what: string): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`Filter ${what}: ${JSON.stringify(value)} is not a string, number, boolean or date.`);
}

function listText(values: unknown, what: string, item: (value: unknown) => string): string {
  if (!Array.isArray(values) || values.length === 0)
    throw new TypeError(`Filter ${what}: needs a non-empty list of values.`);
  return values
    .map((value) => {
      const part = item(value);
      if (part.includes(','))
        throw new TypeError(
          `Filter ${what}: the value ${JSON.stringify(part)} holds a comma, which separates values.`,
        );
      return part;
    })
    .join(',');
}

/** The query-string value of one condition. Values at a JSON path are sent as JSON, so `"5"` stays a string. */
function operandText(operator: FilterOperator, value: unknown, onPath: boolean, what: string): string {
  const scalar = (item: unknown) =>
    onPath ? JSON.stringify(item instanceof Date ? item.toISOString() : item) : text(item, what);
  switch (operator) {
    case 'in':
    case 'ins':
    case 'nin':
    case 'ina':
    case 'nina':
      return listText(value, what, scalar);
    case 'between':
    case 'nbetween':
      if (!Array.isArray(value) || value.length !== 2)
        throw new TypeError(`Filter ${what}: needs [min, max].`);
      return listText(value, what, scalar);
    case 'null':
    case 'nnull':
      if (typeof value !== 'boolean') throw new TypeError(`Filter ${what}: needs true or false.`);
      return String(value);
    case 'has_any_keys':
    case 'has_all_keys':
      return listText(value, what, (key) => text(key, what));
    case 'contained_by':
      return JSON.stringify(value);
    case 'contains':
      // On a whole JSON field `contains` is containment of a JSON value; on text it is a substring.
      return typeof value === 'string' ? value : JSON.stringify(value);
    default:
      if ((textOperators as readonly string[]).includes(operator) || operator === 'has_key')
        return text(value, what);
      return scalar(value);
  }
}

function checkName(name: string, what: string): void {
  if (name === '' || name.includes('__'))
    throw new TypeError(
      `Filter ${what}: "${name}" is empty or holds "__", which separates path keys and operators.`,
    );
}

/**
 * A typed filter: each condition names a field of `T`, an operator the API knows and an operand of the right
 * shape. `params()` gives the query-string pairs (`field`, `field__op`, `field__a__b__op`).
 */
export class Filter<T = AnyRecord> {
  readonly #params: [string, string][] = [];

  /** `field <operator> value`. */
  where<K extends keyof T & string, O extends FilterOperator>(
    field: K,
    operator: O,
    value: Operand<O, NonNullable<T[K]>>,
  ): this {
    return this.#add(field, [], operator, value);
  }

  /** A condition on the value at `path` inside the JSON field `field` (`metadata`, `['specs', 'weight']`). */
  wherePath<K extends keyof T & string, O extends ValueOperator | TextOperator>(
    field: K,
    path: readonly string[],
    operator: O,
    value: Operand<O, unknown>,
  ): this {
    if (path.length === 0) throw new TypeError(`Filter ${field}: a JSON path needs at least one key.`);
    return this.#add(field, path, operator, value);
  }

  /** Adds the conditions of an object filter (`Where<T>`). */
  match(where: Where<T>): this {
    for (const [field, condition] of Object.entries(where as Record<string, unknown>)) {
      if (condition === undefined) continue;
      if (condition === null || typeof condition !== 'object' || condition instanceof Date) {
        this.#add(field, [], 'eq', condition);
        continue;
      }
      const entries = Object.entries(condition as Record<string, unknown>);
      if (entries.length === 0) throw new TypeError(`Filter ${field}: an empty condition object.`);
      for (const [operator, value] of entries) this.#add(field, [], operator as FilterOperator, value);
    }
    return this;
  }

  /** The query-string pairs, in the order the conditions were added. */
  params(): [string, string][] {
    return this.#params.map(([name, value]) => [name, value]);
  }

  #add(field: string, path: readonly string[], operator: FilterOperator, value: unknown): this {
    const what = [field, ...path].join('.');
    if (!known.has(operator))
      throw new TypeError(
        `Filter ${what}: the API has no operator "${operator}" (it knows ${filterOperators.join(', ')}).`,
      );
    checkName(field, what);
    for (const key of path) checkName(key, what);
    const name = [field, ...path].join('__');
    if (value === null && (operator === 'eq' || operator === 'ne')) {
      this.#params.push([`${name}__${operator === 'eq' ? 'null' : 'nnull'}`, 'true']);
      return this;
    }
    if (value === undefined) throw new TypeError(`Filter ${what}: no value for "${operator}".`);
    const operand = operandText(operator, value, path.length > 0, what);
    const last = path[path.length - 1];
    if (
      operator === 'eq' &&
      last &&
      filterOperators.some((suffix) => suffix !== 'eq' && last.endsWith(`_${suffix}`))
    )
      throw new TypeError(
        `Filter ${what}: equality on a path key ending in "_<operator>" reads as that operator.`,
      );
    // Equality is the bare name: the API has no `__eq` suffix.
    this.#params.push([operator === 'eq' ? name : `${name}__${operator}`, operand]);
    return this;
  }
}

/** A filter builder for records of type `T`, optionally starting from an object filter. */
export function filter<T = AnyRecord>(where?: Where<T>): Filter<T> {
  const built = new Filter<T>();
  return where ? built.match(where) : built;
}
