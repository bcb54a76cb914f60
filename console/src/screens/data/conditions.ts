import { appliesTo, Filter, type OperandKind, type Operator } from '../../../../client/src/index';
import { jsonTypes } from '../../queries/table-types';

/**
 * The grid's filter conditions: the API's operators for what a filter applies to (the server's operator table, as the typed
 * client generates it), values read from what was typed, and the typed client's filter.
 */

export interface Condition {
  field: string;
  /** Keys inside a JSON field (`awards.hugo` → `['awards', 'hugo']`); empty: the field itself. */
  path: string[];
  operator: Operator;
  value: unknown;
}

/** The operators the console offers, in the order it lists them; each is kept only where the table allows it. */
const offered: Operator[] = [
  'eq',
  'ne',
  'contains',
  'ncontains',
  'containss',
  'startswith',
  'endswith',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'nbetween',
  'in',
  'nin',
  'json_contains',
  'contained_by',
  'has_key',
  'has_any_keys',
  'has_all_keys',
  'null',
  'nnull',
];

export const operatorLabels: Partial<Record<Operator, string>> = {
  eq: 'equals',
  ne: 'does not equal',
  contains: 'contains',
  ncontains: 'does not contain',
  containss: 'contains (case-sensitive)',
  startswith: 'starts with',
  endswith: 'ends with',
  in: 'is one of (comma-separated)',
  nin: 'is none of (comma-separated)',
  null: 'is empty',
  nnull: 'is not empty',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  between: 'between (min,max)',
  nbetween: 'not between (min,max)',
  json_contains: 'contains the JSON',
  contained_by: 'is contained in the JSON',
  has_key: 'has the key',
  has_any_keys: 'has any of the keys (comma-separated)',
  has_all_keys: 'has all of the keys (comma-separated)',
};

function kindOf(type: string, onPath: boolean): OperandKind | null {
  if (jsonTypes.has(type)) return onPath ? 'json-path' : 'json';
  if (type === 'string') return 'text';
  if (type === 'tsvector') return null;
  return 'comparable';
}

/** The operators a filter of this field type (at a JSON path or not) can use. */
export function operatorsFor(type: string, onPath = false): Operator[] {
  const kind = kindOf(type, onPath);
  if (!kind) return [];
  return offered.filter((operator) => {
    if (!appliesTo(operator, kind)) return false;
    // Booleans: equality and emptiness; whole JSON fields: what only they take, and emptiness.
    if (type === 'boolean') return ['eq', 'ne', 'null', 'nnull'].includes(operator);
    if (kind === 'json') return !['eq', 'ne', 'in', 'nin'].includes(operator);
    return true;
  });
}

function convert(type: string, text: string): unknown {
  if (type === 'integer' || type === 'number') return text.trim() === '' ? text : Number(text);
  if (type === 'boolean') return text === 'true';
  return text;
}

/** A value at a JSON path is JSON when it parses (`5`, `true`, `"5"`), else text, as the API reads it. */
function pathValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The operand of a condition from what was typed, or the message to show at the value. */
export function conditionValue(
  type: string,
  onPath: boolean,
  operator: Operator,
  text: string,
): { value?: unknown; error?: string } {
  if (operator === 'null' || operator === 'nnull') return { value: true };
  const one = onPath ? pathValue : (part: string) => convert(type, part);
  const parts = () =>
    text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  switch (operator) {
    case 'in':
    case 'nin':
    case 'between':
    case 'nbetween':
      return { value: parts().map(one) };
    case 'has_any_keys':
    case 'has_all_keys':
      return { value: parts() };
    case 'has_key':
      return { value: text.trim() };
    case 'json_contains':
    case 'contained_by':
      try {
        const parsed = JSON.parse(text);
        // The client sends a string operand as it is: a JSON string document keeps its quotes.
        return { value: typeof parsed === 'string' ? JSON.stringify(parsed) : parsed };
      } catch {
        return { error: 'Enter a JSON value, e.g. {"genre": "scifi"}.' };
      }
    default:
      return { value: one(text) };
  }
}

/** The typed client's filter for the conditions (all combine with AND). */
export function toFilter(conditions: readonly Condition[]): Filter {
  const built = new Filter();
  for (const condition of conditions) {
    const operator = condition.operator === 'json_contains' ? 'contains' : condition.operator;
    if (condition.path.length)
      built.wherePath(condition.field, condition.path, operator as never, condition.value as never);
    else built.where(condition.field, operator as never, condition.value as never);
  }
  return built;
}

export function conditionName(condition: Condition): string {
  return [condition.field, ...condition.path].join('.');
}
