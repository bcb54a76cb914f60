import { type FieldErrors, ValidationError } from '../errors';
import { jsonValueProblems } from '../http/body';
import { newFieldErrors } from '../http/validation';
import type { FieldDef } from './model';
import { systemFields } from './model';
import { controlParameters } from './parameters';
import { type Fragment, join, type Queryable } from './sql';
import type { DataTable } from './table';
import { isJsonType, timeOfDay, typeRule } from './types';
import { valueProblems } from './validator';

/**
 * Record queries: which records (conditions, soft-delete visibility) and which page. This issue reads equality
 * filters only; the query language adds operators to `operators`, their spellings to `parseFilterName`, and
 * sorting to `orderBy`, without changing the callers.
 */

/** Filter operators. `eq` is a bare `field=value`; `in` (a list of values) serves `ids` until the query language names it. */
export type Operator = 'eq' | 'in';

export interface Condition {
  field: FieldDef;
  operator: Operator;
  /** The value in its JSON form, checked against the field's type; null matches missing values. */
  value: unknown;
}

/** Soft-delete visibility: live records (default), all (`include_deleted`), soft-deleted only (`only_deleted`). */
export type Visibility = 'live' | 'all' | 'deleted';

export interface RecordQuery {
  conditions: Condition[];
  visibility: Visibility;
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

export function visibilityOf(query: { include_deleted?: boolean; only_deleted?: boolean }): Visibility {
  if (query.only_deleted) return 'deleted';
  return query.include_deleted ? 'all' : 'live';
}

interface OperatorRule {
  /** The SQL of `column <op> value`. */
  sql: (sql: Queryable, column: Fragment, field: FieldDef, value: unknown) => Fragment;
}

function bind(sql: Queryable, field: FieldDef, value: unknown): Fragment {
  return isJsonType(field.type) ? sql`${sql.json(value as never)}` : sql`${value as string}`;
}

const operators: Record<Operator, OperatorRule> = {
  eq: {
    sql: (sql, column, field, value) =>
      value === null ? sql`${column} IS NULL` : sql`${column} = ${bind(sql, field, value)}`,
  },
  in: {
    // The array's element type is the column's, as PostgreSQL infers it: the key index serves the lookup.
    sql: (sql, column, _field, value) => sql`${column} = ANY(${value as string[]})`,
  },
};

/** Splits a filter name into field and operator; undefined when it names no field of the table. */
function parseFilterName(
  table: DataTable,
  name: string,
): { field: FieldDef; operator: Operator } | undefined {
  const field = table.fields.get(name);
  return field ? { field, operator: 'eq' } : undefined;
}

/** A query-string value in the field's JSON form, or the reason it cannot be one. */
function fromText(field: FieldDef, text: string): { value: unknown } | { problem: string } {
  // PostgreSQL text and jsonb cannot hold U+0000: no stored value can equal one that has it.
  if (text.includes('\u0000')) return { problem: 'Contains the character U+0000, which cannot be stored.' };
  switch (field.type) {
    case 'integer':
      return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text))
        ? { value: Number(text) }
        : { problem: 'Must be an integer.' };
    case 'number': {
      const value = Number(text);
      return text.trim() !== '' && Number.isFinite(value) ? { value } : { problem: 'Must be a number.' };
    }
    case 'boolean':
      if (text === 'true' || text === '1') return { value: true };
      if (text === 'false' || text === '0') return { value: false };
      return { problem: 'Must be true or false.' };
    case 'time':
      return timeOfDay.test(text) ? { value: text } : { problem: 'Must be a valid time.' };
    case 'object':
    case 'array':
    case 'json':
    case 'any':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { value: text };
      }
    default: {
      const problems = valueProblems(field, text);
      return problems.length > 0 ? { problem: problems.join(' ') } : { value: text };
    }
  }
}

function conditionFor(
  table: DataTable,
  name: string,
  read: (field: FieldDef) => { value: unknown } | { problem: string },
  key: string,
  errors: FieldErrors,
): Condition | undefined {
  const parsed = parseFilterName(table, name);
  if (!parsed) {
    errors[key] = [`Unknown field "${name}" of table "${table.name}".`];
    return undefined;
  }
  if (!typeRule(parsed.field.type).comparable && !isJsonType(parsed.field.type)) {
    errors[key] = [`Field "${name}" cannot be filtered.`];
    return undefined;
  }
  const result = read(parsed.field);
  if ('problem' in result) {
    errors[key] = [result.problem];
    return undefined;
  }
  return { field: parsed.field, operator: parsed.operator, value: result.value };
}

/** Filters from a query string: every parameter that is not a control parameter names a field. */
export function filtersFromQuery(table: DataTable, params: URLSearchParams): Condition[] {
  const errors = newFieldErrors();
  const conditions: Condition[] = [];
  for (const [name, text] of params) {
    if (controlParameters.has(name)) continue;
    const condition = conditionFor(table, name, (field) => fromText(field, text), name, errors);
    if (condition) conditions.push(condition);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'Invalid filter.');
  return conditions;
}

/** Filters from a JSON object (`DELETE ?filter=`): `{field: value}`, each value in the field's JSON form. */
export function filtersFromObject(table: DataTable, filter: unknown, key = 'filter'): Condition[] {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter))
    throw ValidationError.field(key, 'Must be a JSON object of field conditions.');
  const errors = newFieldErrors();
  const conditions: Condition[] = [];
  for (const [name, value] of Object.entries(filter)) {
    const condition = conditionFor(
      table,
      name,
      (field) => {
        // The same values a request body may not carry (U+0000, lone surrogates, numbers beyond a double).
        const unfit = Object.values(jsonValueProblems(value)).flat();
        if (unfit.length > 0) return { problem: unfit.join(' ') };
        if (value === null || isJsonType(field.type)) return { value };
        const problems = valueProblems(field, value);
        return problems.length > 0 ? { problem: problems.join(' ') } : { value };
      },
      `${key}.${name}`,
      errors,
    );
    if (condition) conditions.push(condition);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'Invalid filter.');
  return conditions;
}

/** The WHERE condition of a query (`true` when there is nothing to filter). */
export function whereClause(sql: Queryable, table: DataTable, query: RecordQuery): Fragment {
  const parts: Fragment[] = query.conditions.map((condition) =>
    operators[condition.operator].sql(
      sql,
      sql`${sql(condition.field.name)}`,
      condition.field,
      condition.value,
    ),
  );
  const deleted = sql`${sql(systemFields.isDeleted)}`;
  if (query.visibility === 'live' && table.softDelete) parts.push(sql`${deleted} = false`);
  if (query.visibility === 'deleted') parts.push(table.softDelete ? sql`${deleted} = true` : sql`false`);
  return parts.length > 0 ? join(sql, parts, ' AND ') : sql`true`;
}

/** A stable order for pages: creation time when the table keeps it, then the key. */
export function orderBy(sql: Queryable, table: DataTable): Fragment {
  const key = sql`${sql(table.key.name)}`;
  return table.hasCreatedAt ? sql`${sql(systemFields.createdAt)}, ${key}` : key;
}
