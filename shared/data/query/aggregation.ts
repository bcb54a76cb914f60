import { ValidationError } from '../../errors';
import { typeRule } from '../common/field-types';
import { type Fragment, join, type Queryable } from '../common/fragments';
import type { FieldDef } from '../common/model';
import type { DataTable, Row } from '../tables/data-table';

/**
 * Aggregation (`_aggregate`, `_group_by`, `_having`): every function comes from the whitelist below and every field
 * from the table's schema; SQL sees them as fixed text and quoted known identifiers, values as bind parameters.
 */

type Kind = 'numeric' | 'comparable' | 'any' | 'text';

interface AggregateFunction {
  /** Which fields it takes. */
  takes: Kind;
  /** Whether its result is a number (and so can be compared in `_having`). */
  numeric: boolean | ((field: FieldDef) => boolean);
  sql: (sql: Queryable, column: Fragment, field?: FieldDef) => Fragment;
}

/**
 * `min`/`max`: PostgreSQL has neither for `boolean` nor for `uuid`. Booleans take `bool_and`/`bool_or` (false is the
 * smaller), uuids their text (lower-case hex, whose order is the uuid's byte order).
 */
function extreme(fn: 'min' | 'max'): AggregateFunction['sql'] {
  return (sql, column, field) => {
    if (field?.type === 'boolean') return fn === 'min' ? sql`bool_and(${column})` : sql`bool_or(${column})`;
    const value = asText(sql, column, field);
    return fn === 'min' ? sql`min(${value})` : sql`max(${value})`;
  };
}

/** A uuid string field's column as text (its `uuid` column has no `min`, `max` or `string_agg`); others as they are. */
function asText(sql: Queryable, column: Fragment, field: FieldDef | undefined): Fragment {
  return field?.type === 'string' && field.format === 'uuid' ? sql`${column}::text` : column;
}

const isNumber = (field: FieldDef) => field.type === 'integer' || field.type === 'number';

const functions: Record<string, AggregateFunction> = {
  count: { takes: 'any', numeric: true, sql: (sql, column) => sql`count(${column})` },
  sum: { takes: 'numeric', numeric: true, sql: (sql, column) => sql`sum(${column})` },
  avg: { takes: 'numeric', numeric: true, sql: (sql, column) => sql`avg(${column})` },
  min: { takes: 'comparable', numeric: isNumber, sql: extreme('min') },
  max: { takes: 'comparable', numeric: isNumber, sql: extreme('max') },
  stddev: { takes: 'numeric', numeric: true, sql: (sql, column) => sql`stddev(${column})` },
  variance: { takes: 'numeric', numeric: true, sql: (sql, column) => sql`variance(${column})` },
  array_agg: { takes: 'any', numeric: false, sql: (sql, column) => sql`array_agg(${column})` },
  json_agg: { takes: 'any', numeric: false, sql: (sql, column) => sql`json_agg(${column})` },
  string_agg: {
    takes: 'text',
    numeric: false,
    sql: (sql, column, field) => sql`string_agg(${asText(sql, column, field)}, ', ')`,
  },
};

export interface Aggregate {
  /** The response key: `count` for `count(*)`, else `<function>_<field>`. */
  alias: string;
  fn: string;
  /** Undefined for `count(*)`. */
  field?: FieldDef;
}

export interface HavingCondition {
  aggregate: Aggregate;
  operator: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
  value: number;
}

export interface AggregationPlan {
  aggregates: Aggregate[];
  groupBy: FieldDef[];
  having: HavingCondition[];
}

function takes(kind: Kind, field: FieldDef): boolean {
  if (field.type === 'tsvector') return false;
  if (kind === 'numeric') return isNumber(field);
  if (kind === 'text') return field.type === 'string';
  if (kind === 'comparable') return typeRule(field.type).comparable;
  return true;
}

function aggregateOf(table: DataTable, fn: string, fieldName: string, key: string): Aggregate {
  const rule = Object.hasOwn(functions, fn) ? functions[fn] : undefined;
  if (!rule) throw ValidationError.field(key, `Unknown aggregate function "${fn}".`);
  if (fieldName === '*') {
    if (fn !== 'count') throw ValidationError.field(key, `Only count takes *.`);
    return { alias: 'count', fn };
  }
  const field = table.fields.get(fieldName);
  if (!field) throw ValidationError.field(key, `Unknown field "${fieldName}" of table "${table.name}".`);
  if (!takes(rule.takes, field))
    throw ValidationError.field(key, `${fn} does not apply to field "${fieldName}" (${field.type}).`);
  return { alias: `${fn}_${fieldName}`, fn, field };
}

const callPattern = /^([a-z_]+)\((\*|[A-Za-z0-9_]+)\)$/;

function aggregatesOf(table: DataTable, text: string): Aggregate[] {
  const items = text.split(',').map((item) => item.trim().replace(/\s+/g, ''));
  if (items.length > 20) throw ValidationError.field('_aggregate', 'At most 20 aggregates.');
  const aggregates = items.map((item) => {
    const match = callPattern.exec(item);
    if (!match)
      throw ValidationError.field('_aggregate', 'Write each aggregate as function(field), e.g. sum(total).');
    return aggregateOf(table, match[1] as string, match[2] as string, '_aggregate');
  });
  return [...new Map(aggregates.map((aggregate) => [aggregate.alias, aggregate])).values()];
}

/** `count` or `<function>_<field>` back to its aggregate (the longest function name that fits). */
function aggregateOfAlias(table: DataTable, alias: string): Aggregate {
  if (alias === 'count') return { alias, fn: 'count' };
  const fn = Object.keys(functions)
    .sort((a, b) => b.length - a.length)
    .find((name) => alias.startsWith(`${name}_`));
  if (!fn) throw ValidationError.field('_having', `Unknown aggregate "${alias}".`);
  return aggregateOf(table, fn, alias.slice(fn.length + 1), '_having');
}

const havingOperators = ['gte', 'lte', 'gt', 'lt', 'ne', 'eq'] as const;

function havingOf(table: DataTable, text: string): HavingCondition {
  const [name = '', valueText = ''] = text.split('=', 2);
  const operator = havingOperators.find((op) => name.endsWith(`__${op}`) || name.endsWith(`_${op}`));
  if (!operator)
    throw ValidationError.field('_having', 'Write each condition as <aggregate>__<operator>=<number>.');
  const alias = name.slice(0, name.length - operator.length).replace(/__?$/, '');
  const aggregate = aggregateOfAlias(table, alias);
  const rule = functions[aggregate.fn] as AggregateFunction;
  const numeric =
    typeof rule.numeric === 'function' ? rule.numeric(aggregate.field as FieldDef) : rule.numeric;
  if (!numeric) throw ValidationError.field('_having', `"${alias}" is not a number to compare.`);
  const value = Number(valueText);
  if (valueText.trim() === '' || !Number.isFinite(value))
    throw ValidationError.field('_having', 'Must compare with a number.');
  return { aggregate, operator, value };
}

/** The aggregation a request asks for; undefined without `_aggregate`. */
export function aggregationOf(table: DataTable, params: URLSearchParams): AggregationPlan | undefined {
  const text = params.get('_aggregate');
  if (text === null) {
    if (params.has('_group_by') || params.has('_having'))
      throw ValidationError.field('_aggregate', 'Name the aggregates to group or filter.');
    return undefined;
  }
  const aggregates = aggregatesOf(table, text);
  const groupBy = (params.get('_group_by') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
    .map((name) => {
      const field = table.fields.get(name);
      if (!field)
        throw ValidationError.field('_group_by', `Unknown field "${name}" of table "${table.name}".`);
      if (!typeRule(field.type).comparable)
        throw ValidationError.field('_group_by', `Field "${name}" cannot be grouped.`);
      return field;
    });
  const having = params
    .getAll('_having')
    .flatMap((value) => value.split(','))
    .filter((item) => item.trim() !== '')
    .map((item) => havingOf(table, item.trim()));
  return { aggregates, groupBy, having };
}

export function aggregateSql(sql: Queryable, aggregate: Aggregate): Fragment {
  const rule = functions[aggregate.fn] as AggregateFunction;
  return rule.sql(sql, aggregate.field ? sql`${sql(aggregate.field.name)}` : sql`*`, aggregate.field);
}

const comparisonSql = (sql: Queryable, operator: HavingCondition['operator']) =>
  ({ eq: sql`=`, ne: sql`<>`, gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` })[operator];

/** The HAVING condition (`true` without one). */
export function havingSql(sql: Queryable, having: readonly HavingCondition[]): Fragment {
  if (having.length === 0) return sql`true`;
  return join(
    sql,
    having.map(
      (item) =>
        sql`(${aggregateSql(sql, item.aggregate)})::numeric ${comparisonSql(sql, item.operator)} ${String(item.value)}::numeric`,
    ),
    ' AND ',
  );
}

/** An aggregate's value as the API shows it: numbers as numbers, values of a field in their JSON form. */
export function aggregateValue(aggregate: Aggregate, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const { fn, field } = aggregate;
  if (['count', 'sum', 'avg', 'stddev', 'variance'].includes(fn)) return Number(value);
  if (!field) return value;
  const output = typeRule(field.type).output;
  if (fn === 'array_agg' && Array.isArray(value))
    return value.map((item) => (item === null ? null : output(item)));
  if (fn === 'min' || fn === 'max') return output(value);
  return value;
}

/** A group row's group fields in their JSON form. */
export function groupValues(groupBy: readonly FieldDef[], row: Row, column: (index: number) => string): Row {
  const out: Row = {};
  groupBy.forEach((field, index) => {
    const value = row[column(index)];
    out[field.name] = value === null || value === undefined ? null : typeRule(field.type).output(value);
  });
  return out;
}
