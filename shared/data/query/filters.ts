import { isJsonType } from '../common/field-types';
import { type Fragment, join, type Queryable } from '../common/fragments';
import type { FieldDef } from '../common/model';
import type { Operator } from './operators';

/**
 * The SQL of each filter operator (the operators themselves: operators.ts). Values reach SQL as bind parameters
 * only; the column is a quoted known field name, and a JSON path is a bind parameter too (`#>` with a text array).
 */

export type { Operator } from './operators';

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
  /** The same as text, for the text operators (built when one asks: most operators never do). */
  readonly text: Fragment;
  /** Whether `expr` is jsonb (a JSON field, or a path into one). */
  json: boolean;
}

function operandOf(sql: Queryable, condition: Condition): Operand {
  const column = sql`${sql(condition.field.name)}`;
  const json = isJsonType(condition.field.type);
  if (condition.path && condition.path.length > 0) {
    const path = condition.path as string[];
    return {
      expr: sql`(${column} #> ${path}::text[])`,
      get text() {
        return sql`(${column} #>> ${path}::text[])`;
      },
      json,
    };
  }
  return {
    expr: column,
    get text() {
      return sql`${column}::text`;
    },
    json,
  };
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
  // One parameter per value, each typed as the operand (PostgreSQL infers a column's type; JSON is bound as jsonb):
  // an array parameter was typed from the JavaScript values, which PostgreSQL 15 refused for booleans (a 500 for
  // `active_nin=true`, found by the query fuzz). The key index serves an IN list as it did the array.
  return sql`${operand.expr} IN (${join(
    sql,
    values.map((value) => bound(sql, operand, value)),
  )})`;
}

/** `%`, `_` and the escape character itself match literally. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

type TextFamily = 'contains' | 'startswith' | 'endswith';

/** A text match: `contains`, `startswith` or `endswith`, ignoring case unless `caseSensitive`, maybe negated. */
function textMatch(
  family: TextFamily,
  options: { caseSensitive?: boolean; negated?: boolean } = {},
): OperatorSql {
  return (sql, operand, value) => {
    const literal = likeLiteral(value as string);
    const pattern =
      family === 'contains' ? `%${literal}%` : family === 'startswith' ? `${literal}%` : `%${literal}`;
    const like = options.caseSensitive ? sql`LIKE` : sql`ILIKE`;
    const match = sql`${operand.text} ${like} ${pattern}`;
    return options.negated ? sql`(${operand.text} IS NULL OR NOT (${match}))` : match;
  };
}

function isNull(sql: Queryable, operand: Operand): Fragment {
  return operand.json
    ? sql`(${operand.expr} IS NULL OR jsonb_typeof(${operand.expr}) = 'null')`
    : sql`${operand.expr} IS NULL`;
}

/** The SQL of one operator on its operand, given the value as filter-parse.ts read it. */
type OperatorSql = (sql: Queryable, operand: Operand, value: unknown) => Fragment;

function comparison(op: '>' | '>=' | '<' | '<='): OperatorSql {
  return (sql, operand, value) =>
    compare(sql, operand, { '>': sql`>`, '>=': sql`>=`, '<': sql`<`, '<=': sql`<=` }[op], value);
}

function range(negated: boolean): OperatorSql {
  return (sql, operand, value) => {
    const [min, max] = value as [unknown, unknown];
    const within = sql`(${compare(sql, operand, sql`>=`, min)} AND ${compare(sql, operand, sql`<=`, max)})`;
    return negated ? sql`(${operand.expr} IS NULL OR NOT ${within})` : within;
  };
}

/** One SQL builder per operator of the table: a new operator does not typecheck until it has its SQL here. */
export const operatorSql: { readonly [O in Operator]: OperatorSql } = {
  eq: (sql, operand, value) =>
    value === null ? isNull(sql, operand) : sql`${operand.expr} = ${bound(sql, operand, value)}`,
  ne: (sql, operand, value) =>
    value === null
      ? sql`NOT ${isNull(sql, operand)}`
      : sql`${operand.expr} IS DISTINCT FROM ${bound(sql, operand, value)}`,
  gt: comparison('>'),
  gte: comparison('>='),
  lt: comparison('<'),
  lte: comparison('<='),
  in: (sql, operand, value) => membership(sql, operand, value as unknown[], false),
  ins: (sql, operand, value) => membership(sql, operand, value as unknown[], false),
  nin: (sql, operand, value) =>
    sql`(${operand.expr} IS NULL OR NOT ${membership(sql, operand, value as unknown[], false)})`,
  ina: (sql, operand, value) => membership(sql, operand, value as unknown[], true),
  nina: (sql, operand, value) =>
    sql`(${operand.expr} IS NULL OR NOT ${membership(sql, operand, value as unknown[], true)})`,
  between: range(false),
  nbetween: range(true),
  null: (sql, operand, value) => (value ? isNull(sql, operand) : sql`NOT ${isNull(sql, operand)}`),
  nnull: (sql, operand, value) => (value ? sql`NOT ${isNull(sql, operand)}` : isNull(sql, operand)),
  contains: textMatch('contains'),
  ncontains: textMatch('contains', { negated: true }),
  icontains: textMatch('contains'),
  nicontains: textMatch('contains', { negated: true }),
  containss: textMatch('contains', { caseSensitive: true }),
  ncontainss: textMatch('contains', { caseSensitive: true, negated: true }),
  startswith: textMatch('startswith'),
  nstartswith: textMatch('startswith', { negated: true }),
  istartswith: textMatch('startswith'),
  nistartswith: textMatch('startswith', { negated: true }),
  startswiths: textMatch('startswith', { caseSensitive: true }),
  nstartswiths: textMatch('startswith', { caseSensitive: true, negated: true }),
  endswith: textMatch('endswith'),
  nendswith: textMatch('endswith', { negated: true }),
  iendswith: textMatch('endswith'),
  niendswith: textMatch('endswith', { negated: true }),
  endswiths: textMatch('endswith', { caseSensitive: true }),
  nendswiths: textMatch('endswith', { caseSensitive: true, negated: true }),
  json_contains: (sql, operand, value) => sql`${operand.expr} @> ${sql.json(value as never)}::jsonb`,
  contained_by: (sql, operand, value) => sql`${operand.expr} <@ ${sql.json(value as never)}::jsonb`,
  has_key: (sql, operand, value) => sql`jsonb_exists(${operand.expr}, ${value as string})`,
  has_any_keys: (sql, operand, value) => sql`jsonb_exists_any(${operand.expr}, ${value as string[]}::text[])`,
  has_all_keys: (sql, operand, value) => sql`jsonb_exists_all(${operand.expr}, ${value as string[]}::text[])`,
};

/** The SQL of one condition. */
export function conditionSql(sql: Queryable, condition: Condition): Fragment {
  return operatorSql[condition.operator](sql, operandOf(sql, condition), condition.value);
}
