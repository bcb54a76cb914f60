import { isJsonType, timeOfDay, typeRule } from '../common/field-types';
import type { FieldDef } from '../common/model';
import { valueProblems } from '../schema/validator';
import type { DataTable } from '../tables/data-table';
import type { Condition } from './filters';
import {
  appliesTo,
  fieldOperandKinds,
  type OperandKind,
  type Operator,
  operatorSpec,
  operatorSuffixes,
  operatorsOfSuffix,
  type ValueShape,
} from './operators';

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

/** The kind of operand a filter has: a value inside a JSON field, or the field as a whole. */
function operandKind(field: FieldDef, path: readonly string[]): OperandKind | null {
  return path.length > 0 ? 'json-path' : fieldOperandKinds[field.type];
}

/**
 * The operator a suffix names on this operand: the one of that suffix that applies to it (`contains` on a whole
 * JSON field is JSON containment). On a field it does not apply to, an operator of text or comparable fields is
 * still read (and refused by `operatorProblem`, naming it); one of whole JSON fields only, or any on a JSON path,
 * is not an operator there.
 */
function operatorFor(field: FieldDef, path: readonly string[], suffix: string): Operator | undefined {
  const named = operatorsOfSuffix(suffix);
  const kind = operandKind(field, path);
  const fitting = kind === null ? undefined : named.find((operator) => appliesTo(operator, kind));
  if (fitting || kind === 'json-path') return fitting;
  return named.find((operator) => appliesTo(operator, 'text') || appliesTo(operator, 'comparable'));
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
  const field = filter.path.length > 0 ? pathField : filter.field;
  if (text.includes('\u0000')) return { problem: 'Contains the character U+0000, which cannot be stored.' };
  return readValue[operatorSpec(filter.operator).value](field, text);
}

/** How each value shape of the operator table is read. */
const readValue: Record<ValueShape, (field: FieldDef, text: string) => Result<unknown>> = {
  value: fromText,
  list: listOf,
  range: (field, text) => {
    const range = listOf(field, text);
    if ('value' in range && range.value.length !== 2) return { problem: 'Must be two values: min,max.' };
    return range;
  },
  boolean: (_field, text) => booleanOf(text),
  text: (_field, text) => ({ value: text }),
  keys: (_field, text) => ({ value: text.split(',').slice(0, maxListValues) }),
  json: (_field, text) => {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { problem: 'Must be JSON.' };
    }
  },
};

/** Whether the operator applies to the field as a whole (the operator table's kinds), and why not. */
function operatorProblem(filter: FilterName): string | undefined {
  const { field, operator, path } = filter;
  if (path.length > 0) return undefined;
  const kind = fieldOperandKinds[field.type];
  if (kind === null) return `Field "${field.name}" cannot be filtered: use search.`;
  if (appliesTo(operator, 'text') && !appliesTo(operator, 'comparable') && kind !== 'text')
    return `Operator "${operator}" applies to text fields only.`;
  if (kind === 'json' && !appliesTo(operator, 'json'))
    return `Operator "${operator}" needs a path into the JSON field "${field.name}".`;
  if (!typeRule(field.type).comparable && kind !== 'json') return `Field "${field.name}" cannot be filtered.`;
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
