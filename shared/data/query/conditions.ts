import { jsonValueProblems } from '../../api/body';
import { type FieldErrors, ValidationError } from '../../errors';
import { newFieldErrors } from '../../field-errors';
import { isJsonType, typeRule } from '../common/field-types';
import { type Fragment, join, type Queryable } from '../common/fragments';
import type { FieldDef } from '../common/model';
import { systemFields } from '../common/model';
import { reservedParameters } from '../common/parameters';
import { valueProblems } from '../schema/validator';
import type { DataTable } from '../tables/data-table';
import { filterCondition } from './filter-parse';
import { type Condition, conditionSql } from './filters';

/**
 * Record queries: which records (conditions, soft-delete visibility). The operators are in operators.ts, the
 * reading of filter parameters in filter-parse.ts, their SQL in filters.ts, sorting and paging in paging.ts.
 */

export type { Condition, Operator } from './filters';

/** Soft-delete visibility: live records (default), all (`include_deleted`), soft-deleted only (`only_deleted`). */
export type Visibility = 'live' | 'all' | 'deleted';

export interface RecordQuery {
  conditions: Condition[];
  visibility: Visibility;
}

/** The visibility a request asks for; `only_deleted` wins over `include_deleted`. */
export function visibilityOf(query: { include_deleted?: boolean; only_deleted?: boolean }): Visibility {
  if (query.only_deleted) return 'deleted';
  return query.include_deleted ? 'all' : 'live';
}

/** Filters from a query string: every parameter that is not a reserved parameter names a field. */
export function filtersFromQuery(table: DataTable, params: URLSearchParams): Condition[] {
  const errors = newFieldErrors();
  const conditions: Condition[] = [];
  for (const [name, text] of params) {
    if (reservedParameters.has(name)) continue;
    const condition = filterCondition(table, name, text);
    if (!condition) errors[name] = [`Unknown field "${name}" of table "${table.name}".`];
    else if ('problem' in condition) errors[name] = [condition.problem];
    else conditions.push(condition.value);
  }
  if (Object.keys(errors).length > 0)
    throw new ValidationError({ fields: errors, message: 'Invalid filter.' });
  return conditions;
}

function conditionFor(
  table: DataTable,
  name: string,
  read: (field: FieldDef) => { value: unknown } | { problem: string },
  key: string,
  errors: FieldErrors,
): Condition | undefined {
  const field = table.fields.get(name);
  if (!field) {
    errors[key] = [`Unknown field "${name}" of table "${table.name}".`];
    return undefined;
  }
  if (!typeRule(field.type).comparable && !isJsonType(field.type)) {
    errors[key] = [`Field "${name}" cannot be filtered.`];
    return undefined;
  }
  const result = read(field);
  if ('problem' in result) {
    errors[key] = [result.problem];
    return undefined;
  }
  return { field, operator: 'eq', value: result.value };
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
  if (Object.keys(errors).length > 0)
    throw new ValidationError({ fields: errors, message: 'Invalid filter.' });
  return conditions;
}

/** The WHERE condition of a query (`true` when there is nothing to filter). */
export function whereClause(sql: Queryable, table: DataTable, query: RecordQuery): Fragment {
  const parts: Fragment[] = query.conditions.map((condition) => conditionSql(sql, condition));
  if (query.visibility === 'live' && table.softDelete)
    parts.push(sql`${sql(systemFields.isDeleted)} = false`);
  if (query.visibility === 'deleted')
    parts.push(table.softDelete ? sql`${sql(systemFields.isDeleted)} = true` : sql`false`);
  if (parts.length === 1) return parts[0] as Fragment;
  return parts.length > 0 ? join(sql, parts, ' AND ') : sql`true`;
}
