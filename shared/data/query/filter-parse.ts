import { isJsonType, timeOfDay, typeRule } from '../common/field-types';
import type { FieldDef } from '../common/model';
import { valueProblems } from '../schema/validator';
import type { DataTable } from '../tables/data-table';
import { type Condition, isTextOperator, type Operator, operatorSuffixes } from './filters';

/**
 * Reading a filter parameter: which field (the longest field name the parameter starts with), which JSON path and
 * which operator (after `_` or `__`), and its value cast to the field's type.
 */

/** Values per membership filter: enough for any page of keys, small enough to stay one statement. */
export const maxListValues = 1000;

type Result<T> = { value: T } | { problem: string };

/** The parts of a filter name, before its value is read. */
export interface FilterName {
  field: FieldDef;
  path: string[];
  operator: Operator;
}

/** The operator a suffix names on this operand (`contains` on a whole JSON field is JSON containment). */
function operatorFor(field: FieldDef, path: readonly string[], suffix: string): Operator | undefined {
  if (!operatorSuffixes.includes(suffix)) return undefined;
  const wholeJson = isJsonType(field.type) && path.length === 0;
  if (wholeJson && suffix === 'contains') return 'json_contains';
  if (!wholeJson && ['contained_by', 'has_key', 'has_any_keys', 'has_all_keys'].includes(suffix))
    return undefined;
  return suffix as Operator;
}

/** `rest` after a field name: `` (equality), `_op`, `__op`, or (JSON fields) `__a__b`, `__a__b_op`, `__a__b__op`. */
function parseRest(field: FieldDef, rest: string): FilterName | undefined {
  if (rest === '') return { field, path: [], operator: 'eq' };
  for (const separator of ['__', '_']) {
    if (!rest.startsWith(separator)) continue;
    const operator = operatorFor(field, [], rest.slice(separator.length));
    if (operator) return { field, path: [], operator };
  }
  if (!isJsonType(field.type) || !rest.startsWith('__')) return undefined;
  const segments = rest.slice(2).split('__');
  if (segments.some((segment) => segment === '')) return undefined;
  const last = segments[segments.length - 1] as string;
  const before = segments.slice(0, -1);
  if (before.length > 0) {
    const operator = operatorFor(field, before, last);
    if (operator) return { field, path: before, operator };
  }
  for (const suffix of operatorSuffixes) {
    if (!last.endsWith(`_${suffix}`) || last.length === suffix.length + 1) continue;
    const path = [...before, last.slice(0, -(suffix.length + 1))];
    const operator = operatorFor(field, path, suffix);
    if (operator) return { field, path, operator };
  }
  return { field, path: segments, operator: 'eq' };
}

/** Fields by descending name length: a parameter resolves to the longest field name it starts with. */
const byLength = new WeakMap<DataTable, FieldDef[]>();

function fieldsByLength(table: DataTable): FieldDef[] {
  let fields = byLength.get(table);
  if (!fields) {
    fields = [...table.fields.values()].sort((a, b) => b.name.length - a.name.length);
    byLength.set(table, fields);
  }
  return fields;
}

/** Splits a filter parameter into field, JSON path and operator; undefined when it names no field of the table. */
export function parseFilterName(table: DataTable, name: string): FilterName | undefined {
  for (const field of fieldsByLength(table)) {
    if (!name.startsWith(field.name)) continue;
    const parsed = parseRest(field, name.slice(field.name.length));
    if (parsed) return parsed;
  }
  return undefined;
}

/** A query-string value in the field's JSON form, or the reason it cannot be one. */
export function fromText(field: FieldDef, text: string): Result<unknown> {
  // PostgreSQL text and jsonb cannot hold U+0000: no stored value can equal one that has it.
  if (text.includes('\u0000')) return { problem: 'Contains the character U+0000, which cannot be stored.' };
  switch (field.type) {
    case 'integer':
      return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text))
        ? { value: Number(text) }
        : { problem: 'Must be an integer.' };
    case 'number': {
      const value = Number(text);
      return /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) && Number.isFinite(value)
        ? { value }
        : { problem: 'Must be a number.' };
    }
    case 'boolean':
      return booleanOf(text);
    case 'time':
      return timeOfDay.test(text) ? { value: text } : { problem: 'Must be a valid time.' };
    case 'string':
      return field.format !== 'uuid' || valueProblems(field, text).length === 0
        ? { value: text }
        : { problem: 'Must be a UUID.' };
    case 'object':
    case 'array':
    case 'json':
    case 'any':
      return { value: jsonOf(text) };
    default: {
      const problems = valueProblems(field, text);
      return problems.length > 0 ? { problem: problems.join(' ') } : { value: text };
    }
  }
}

function booleanOf(text: string): Result<boolean> {
  if (text === 'true' || text === '1') return { value: true };
  if (text === 'false' || text === '0') return { value: false };
  return { problem: 'Must be true or false.' };
}

/** A JSON value, or the text itself as a JSON string when it is not JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A value inside a JSON field: JSON when it parses, else a string (`name=Ann` means the string "Ann"). */
const pathField: FieldDef = { name: '', type: 'json' };

function listOf(field: FieldDef, text: string): Result<unknown[]> {
  const parts = text.split(',');
  if (parts.length > maxListValues) return { problem: `At most ${maxListValues} values.` };
  const values: unknown[] = [];
  for (const part of parts) {
    const read = fromText(field, part);
    if ('problem' in read) return read;
    values.push(read.value);
  }
  return { value: values };
}

function valueFor(filter: FilterName, text: string): Result<unknown> {
  const { operator } = filter;
  const field = filter.path.length > 0 ? pathField : filter.field;
  if (text.includes('\u0000')) return { problem: 'Contains the character U+0000, which cannot be stored.' };
  if (isTextOperator(operator)) return { value: text };
  switch (operator) {
    case 'null':
    case 'nnull':
      return booleanOf(text);
    case 'in':
    case 'ins':
    case 'nin':
    case 'ina':
    case 'nina':
      return listOf(field, text);
    case 'between':
    case 'nbetween': {
      const range = listOf(field, text);
      if ('value' in range && range.value.length !== 2) return { problem: 'Must be two values: min,max.' };
      return range;
    }
    case 'has_key':
      return { value: text };
    case 'has_any_keys':
    case 'has_all_keys':
      return { value: text.split(',').slice(0, maxListValues) };
    case 'json_contains':
    case 'contained_by':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { problem: 'Must be JSON.' };
      }
    default:
      return fromText(field, text);
  }
}

/** Which operators a field type accepts: text operators need text, ordering needs a comparable type. */
function operatorProblem(filter: FilterName): string | undefined {
  const { field, operator, path } = filter;
  if (path.length > 0) return undefined;
  if (field.type === 'tsvector') return `Field "${field.name}" cannot be filtered: use search.`;
  const json = isJsonType(field.type);
  if (isTextOperator(operator) && field.type !== 'string')
    return `Operator "${operator}" applies to text fields only.`;
  if ((operator === 'ina' || operator === 'nina') && field.type !== 'string')
    return `Operator "${operator}" applies to text fields only.`;
  const ordered = ['gt', 'gte', 'lt', 'lte', 'between', 'nbetween'].includes(operator);
  if (json && ordered) return `Operator "${operator}" needs a path into the JSON field "${field.name}".`;
  if (!typeRule(field.type).comparable && !json) return `Field "${field.name}" cannot be filtered.`;
  return undefined;
}

/** One filter parameter as a condition, or the reason it is refused; undefined when it names no field. */
export function filterCondition(table: DataTable, name: string, text: string): Result<Condition> | undefined {
  const filter = parseFilterName(table, name);
  if (!filter) return undefined;
  const problem = operatorProblem(filter);
  if (problem) return { problem };
  const read = valueFor(filter, text);
  if ('problem' in read) return read;
  const condition: Condition = { field: filter.field, operator: filter.operator, value: read.value };
  if (filter.path.length > 0) condition.path = filter.path;
  return { value: condition };
}
