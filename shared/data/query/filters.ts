import { isJsonType } from '../common/field-types';
import { type Fragment, join, type Queryable } from '../common/fragments';
import type { FieldDef } from '../common/model';

/**
 * The filter operators of the query language and the SQL of each. Values reach SQL as bind parameters only; the
 * column is a quoted known field name, and a JSON path is a bind parameter too (`#>` with a text array).
 */

/** Operators on any comparable value (and on JSON paths). */
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

/**
 * Text operators. Following refine's semantics, the bare `contains`/`startswith`/`endswith` and their `n` negations
 * ignore case; the `s` suffix makes them case-sensitive; `i` spellings are case-insensitive aliases.
 */
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

/** Operators on a whole JSON field (`contains` there is JSON containment, not text). */
export const jsonOperators = ['contained_by', 'has_key', 'has_any_keys', 'has_all_keys'] as const;

export type ValueOperator = (typeof valueOperators)[number];
export type TextOperator = (typeof textOperators)[number];
export type JsonOperator = (typeof jsonOperators)[number] | 'json_contains';
export type Operator = ValueOperator | TextOperator | JsonOperator;

/** Every suffix a filter parameter may carry, longest first (so `nicontains` is tried before `contains`). */
export const operatorSuffixes: readonly string[] = [...valueOperators, ...textOperators, ...jsonOperators]
  .filter((name) => name !== 'eq')
  .sort((a, b) => b.length - a.length);

export interface Condition {
  field: FieldDef;
  operator: Operator;
  /** Keys into a JSON field (`meta__a__b`): the condition applies to the value there. */
  path?: readonly string[];
  /**
   * The value in its JSON form, checked against the field's type: a list for membership, `[min, max]` for ranges,
   * a boolean for null checks, a string for text operators; null matches missing values.
   */
  value: unknown;
}

/** The operand of a condition: the column, or the JSON value at a path of it. */
interface Operand {
  /** The column or the value at the path (jsonb there). */
  expr: Fragment;
  /** The same as text, for the text operators. */
  text: Fragment;
  /** Whether `expr` is jsonb (a JSON field, or a path into one). */
  json: boolean;
}

function operandOf(sql: Queryable, condition: Condition): Operand {
  const column = sql`${sql(condition.field.name)}`;
  const json = isJsonType(condition.field.type);
  if (condition.path && condition.path.length > 0) {
    const path = condition.path as string[];
    return { expr: sql`(${column} #> ${path}::text[])`, text: sql`(${column} #>> ${path}::text[])`, json };
  }
  return { expr: column, text: sql`${column}::text`, json };
}

/** A value bound as the operand's type: JSON as jsonb, anything else as PostgreSQL infers it from the column. */
function bound(sql: Queryable, operand: Operand, value: unknown): Fragment {
  return operand.json ? sql`${sql.json(value as never)}::jsonb` : sql`${value as string}`;
}

/** Comparisons of JSON values only hold between values of one JSON type (jsonb orders types otherwise). */
function compare(sql: Queryable, operand: Operand, op: Fragment, value: unknown): Fragment {
  const right = bound(sql, operand, value);
  const compared = sql`${operand.expr} ${op} ${right}`;
  return operand.json
    ? sql`(${compared} AND jsonb_typeof(${operand.expr}) = jsonb_typeof(${right}))`
    : compared;
}

function membership(sql: Queryable, operand: Operand, values: unknown[], lower: boolean): Fragment {
  if (lower) {
    const texts = values.map((value) => String(value).toLowerCase());
    return sql`lower(${operand.text}) = ANY(${texts}::text[])`;
  }
  if (operand.json)
    return sql`${operand.expr} IN (${join(
      sql,
      values.map((value) => bound(sql, operand, value)),
    )})`;
  // The array's element type is the column's, as PostgreSQL infers it: the key index serves the lookup.
  return sql`${operand.expr} = ANY(${values as string[]})`;
}

/** `%`, `_` and the escape character itself match literally. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function textMatch(sql: Queryable, operand: Operand, operator: TextOperator, value: string): Fragment {
  const negated = operator.startsWith('n');
  const rest = (negated ? operator.slice(1) : operator).replace(/^i/, '');
  const family = ['contains', 'startswith', 'endswith'].find((name) => rest.startsWith(name)) ?? 'contains';
  const caseSensitive = rest === `${family}s`;
  const literal = likeLiteral(value);
  const pattern =
    family === 'contains' ? `%${literal}%` : family === 'startswith' ? `${literal}%` : `%${literal}`;
  const like = caseSensitive ? sql`LIKE` : sql`ILIKE`;
  const match = sql`${operand.text} ${like} ${pattern}`;
  return negated ? sql`(${operand.text} IS NULL OR NOT (${match}))` : match;
}

function isNull(sql: Queryable, operand: Operand): Fragment {
  return operand.json
    ? sql`(${operand.expr} IS NULL OR jsonb_typeof(${operand.expr}) = 'null')`
    : sql`${operand.expr} IS NULL`;
}

function comparisonSql(sql: Queryable, operator: 'gt' | 'gte' | 'lt' | 'lte'): Fragment {
  return { gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` }[operator];
}

function valueCondition(sql: Queryable, operand: Operand, operator: ValueOperator, value: unknown): Fragment {
  switch (operator) {
    case 'eq':
      return value === null ? isNull(sql, operand) : sql`${operand.expr} = ${bound(sql, operand, value)}`;
    case 'ne':
      return value === null
        ? sql`NOT ${isNull(sql, operand)}`
        : sql`${operand.expr} IS DISTINCT FROM ${bound(sql, operand, value)}`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare(sql, operand, comparisonSql(sql, operator), value);
    case 'in':
    case 'ins':
      return membership(sql, operand, value as unknown[], false);
    case 'ina':
      return membership(sql, operand, value as unknown[], true);
    case 'nin':
      return sql`(${operand.expr} IS NULL OR NOT ${membership(sql, operand, value as unknown[], false)})`;
    case 'nina':
      return sql`(${operand.expr} IS NULL OR NOT ${membership(sql, operand, value as unknown[], true)})`;
    case 'between':
    case 'nbetween': {
      const [min, max] = value as [unknown, unknown];
      const within = sql`(${compare(sql, operand, sql`>=`, min)} AND ${compare(sql, operand, sql`<=`, max)})`;
      return operator === 'between' ? within : sql`(${operand.expr} IS NULL OR NOT ${within})`;
    }
    case 'null':
      return value ? isNull(sql, operand) : sql`NOT ${isNull(sql, operand)}`;
    case 'nnull':
      return value ? sql`NOT ${isNull(sql, operand)}` : isNull(sql, operand);
  }
}

function jsonCondition(sql: Queryable, operand: Operand, operator: JsonOperator, value: unknown): Fragment {
  switch (operator) {
    case 'json_contains':
      return sql`${operand.expr} @> ${sql.json(value as never)}::jsonb`;
    case 'contained_by':
      return sql`${operand.expr} <@ ${sql.json(value as never)}::jsonb`;
    case 'has_key':
      return sql`jsonb_exists(${operand.expr}, ${value as string})`;
    case 'has_any_keys':
      return sql`jsonb_exists_any(${operand.expr}, ${value as string[]}::text[])`;
    case 'has_all_keys':
      return sql`jsonb_exists_all(${operand.expr}, ${value as string[]}::text[])`;
  }
}

const textOperatorSet: ReadonlySet<string> = new Set(textOperators);
const valueOperatorSet: ReadonlySet<string> = new Set(valueOperators);

/** The SQL of one condition. */
export function conditionSql(sql: Queryable, condition: Condition): Fragment {
  const operand = operandOf(sql, condition);
  const { operator, value } = condition;
  if (valueOperatorSet.has(operator)) return valueCondition(sql, operand, operator as ValueOperator, value);
  if (textOperatorSet.has(operator))
    return textMatch(sql, operand, operator as TextOperator, value as string);
  return jsonCondition(sql, operand, operator as JsonOperator, value);
}

/** Whether an operator reads its value as text (no cast to the field's type). */
export function isTextOperator(operator: Operator): operator is TextOperator {
  return textOperatorSet.has(operator);
}
