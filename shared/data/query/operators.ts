import type { FieldType } from '../common/model';

/**
 * The filter operators of the query language, in one table: the name of each, what it applies to, how its value is
 * read and the line the docs give it. Reading a filter parameter (filter-parse.ts) and its checks come from this
 * table; its SQL is one builder per entry (`operatorSql` in filters.ts, whose type asks for every name); the
 * operator list of docs/data-tables.md is rendered from it (`operatorDocRows`, held equal by a unit test). A new
 * operator is one entry here and its SQL there.
 *
 * This module imports nothing at run time, so that a client can check its filter builder against it.
 */

/**
 * What a filter can apply to: a text field (`string`), a field of another comparable type, a whole JSON field
 * (`object`, `array`, `json`, `any`), or a value inside a JSON field (`field__a__b`).
 */
export const operandKinds = ['text', 'comparable', 'json', 'json-path'] as const;
export type OperandKind = (typeof operandKinds)[number];

/** The operand kind of each field type as a whole; the search vector takes no filter (`search=` reads it). */
export const fieldOperandKinds = {
  string: 'text',
  integer: 'comparable',
  number: 'comparable',
  boolean: 'comparable',
  date: 'comparable',
  time: 'comparable',
  datetime: 'comparable',
  object: 'json',
  array: 'json',
  json: 'json',
  any: 'json',
  tsvector: null,
} as const satisfies Record<FieldType, OperandKind | null>;

/**
 * How the value after `=` is read: `value` one value of the operand's type; `list` comma-separated values of it
 * (at most `maxListValues`); `range` exactly two of them, `min,max`; `boolean` `true`/`false`/`1`/`0`; `text` the
 * text as it is; `keys` comma-separated JSON keys; `json` a JSON document.
 */
export type ValueShape = 'value' | 'list' | 'range' | 'boolean' | 'text' | 'keys' | 'json';

export interface OperatorSpec {
  /** What the parameter spells after the field name and `_` or `__`; null: no suffix at all (`field=value`). */
  readonly suffix: string | null;
  readonly appliesTo: readonly OperandKind[];
  readonly value: ValueShape;
  /** Its meaning in the docs' operator list; operators in a row of the same meaning and kinds share a line. */
  readonly doc: string;
}

const anyOperand = ['text', 'comparable', 'json', 'json-path'] as const;
const ordered = ['text', 'comparable', 'json-path'] as const;
const textual = ['text', 'json-path'] as const;
const wholeJson = ['json'] as const;

const ignoringCase = (what: string) => `${what}, ignoring case; \`n…\` negates`;
const caseSensitive = (what: string) => `${what}, case-sensitive; \`n…\` negates`;

export const operators = {
  eq: { suffix: null, appliesTo: anyOperand, value: 'value', doc: 'equal' },
  ne: {
    suffix: 'ne',
    appliesTo: anyOperand,
    value: 'value',
    doc: 'not equal; records without a value match (`IS DISTINCT FROM`)',
  },
  gt: { suffix: 'gt', appliesTo: ordered, value: 'value', doc: 'comparisons' },
  gte: { suffix: 'gte', appliesTo: ordered, value: 'value', doc: 'comparisons' },
  lt: { suffix: 'lt', appliesTo: ordered, value: 'value', doc: 'comparisons' },
  lte: { suffix: 'lte', appliesTo: ordered, value: 'value', doc: 'comparisons' },
  in: {
    suffix: 'in',
    appliesTo: anyOperand,
    value: 'list',
    doc: 'one of comma-separated values (case-sensitive); `nin` also matches records without a value',
  },
  ins: {
    suffix: 'ins',
    appliesTo: anyOperand,
    value: 'list',
    doc: 'one of comma-separated values (case-sensitive); `nin` also matches records without a value',
  },
  nin: {
    suffix: 'nin',
    appliesTo: anyOperand,
    value: 'list',
    doc: 'one of comma-separated values (case-sensitive); `nin` also matches records without a value',
  },
  ina: {
    suffix: 'ina',
    appliesTo: textual,
    value: 'list',
    doc: 'one of comma-separated values, ignoring case; `nina` also matches records without a value',
  },
  nina: {
    suffix: 'nina',
    appliesTo: textual,
    value: 'list',
    doc: 'one of comma-separated values, ignoring case; `nina` also matches records without a value',
  },
  between: {
    suffix: 'between',
    appliesTo: ordered,
    value: 'range',
    doc: '`min,max`, both ends included; `n…` negates',
  },
  nbetween: {
    suffix: 'nbetween',
    appliesTo: ordered,
    value: 'range',
    doc: '`min,max`, both ends included; `n…` negates',
  },
  null: {
    suffix: 'null',
    appliesTo: anyOperand,
    value: 'boolean',
    doc: '`true` or `false`: whether the field has no value (`nnull`: has one)',
  },
  nnull: {
    suffix: 'nnull',
    appliesTo: anyOperand,
    value: 'boolean',
    doc: '`true` or `false`: whether the field has no value (`nnull`: has one)',
  },
  contains: { suffix: 'contains', appliesTo: textual, value: 'text', doc: ignoringCase('substring') },
  ncontains: { suffix: 'ncontains', appliesTo: textual, value: 'text', doc: ignoringCase('substring') },
  icontains: { suffix: 'icontains', appliesTo: textual, value: 'text', doc: ignoringCase('substring') },
  nicontains: { suffix: 'nicontains', appliesTo: textual, value: 'text', doc: ignoringCase('substring') },
  containss: { suffix: 'containss', appliesTo: textual, value: 'text', doc: caseSensitive('substring') },
  ncontainss: { suffix: 'ncontainss', appliesTo: textual, value: 'text', doc: caseSensitive('substring') },
  startswith: { suffix: 'startswith', appliesTo: textual, value: 'text', doc: ignoringCase('prefix') },
  nstartswith: { suffix: 'nstartswith', appliesTo: textual, value: 'text', doc: ignoringCase('prefix') },
  istartswith: { suffix: 'istartswith', appliesTo: textual, value: 'text', doc: ignoringCase('prefix') },
  nistartswith: { suffix: 'nistartswith', appliesTo: textual, value: 'text', doc: ignoringCase('prefix') },
  startswiths: { suffix: 'startswiths', appliesTo: textual, value: 'text', doc: caseSensitive('prefix') },
  nstartswiths: { suffix: 'nstartswiths', appliesTo: textual, value: 'text', doc: caseSensitive('prefix') },
  endswith: { suffix: 'endswith', appliesTo: textual, value: 'text', doc: ignoringCase('suffix') },
  nendswith: { suffix: 'nendswith', appliesTo: textual, value: 'text', doc: ignoringCase('suffix') },
  iendswith: { suffix: 'iendswith', appliesTo: textual, value: 'text', doc: ignoringCase('suffix') },
  niendswith: { suffix: 'niendswith', appliesTo: textual, value: 'text', doc: ignoringCase('suffix') },
  endswiths: { suffix: 'endswiths', appliesTo: textual, value: 'text', doc: caseSensitive('suffix') },
  nendswiths: { suffix: 'nendswiths', appliesTo: textual, value: 'text', doc: caseSensitive('suffix') },
  // On a whole JSON field `contains` is JSON containment, not text: one suffix, two operators by operand.
  json_contains: {
    suffix: 'contains',
    appliesTo: wholeJson,
    value: 'json',
    doc: 'the field contains the JSON value (`@>`)',
  },
  contained_by: {
    suffix: 'contained_by',
    appliesTo: wholeJson,
    value: 'json',
    doc: 'the field is contained in the JSON value (`<@`)',
  },
  has_key: { suffix: 'has_key', appliesTo: wholeJson, value: 'text', doc: 'the field has the key' },
  has_any_keys: {
    suffix: 'has_any_keys',
    appliesTo: wholeJson,
    value: 'keys',
    doc: 'the field has one of comma-separated keys',
  },
  has_all_keys: {
    suffix: 'has_all_keys',
    appliesTo: wholeJson,
    value: 'keys',
    doc: 'the field has all of comma-separated keys',
  },
} as const satisfies Record<string, OperatorSpec>;

export type Operator = keyof typeof operators;

/** Every operator name, in the table's order. */
export const operatorNames = Object.keys(operators) as Operator[];

/** The spec of an operator (typed as the general shape, for code that reads any of them). */
export function operatorSpec(operator: Operator): OperatorSpec {
  return operators[operator];
}

/** Whether an operator applies to an operand kind. */
export function appliesTo(operator: Operator, kind: OperandKind): boolean {
  return operatorSpec(operator).appliesTo.includes(kind);
}

/** Every suffix a filter parameter may carry, once each, longest first (`nicontains` is tried before `contains`). */
export const operatorSuffixes: readonly string[] = [
  ...new Set(operatorNames.flatMap((name) => operatorSpec(name).suffix ?? [])),
].sort((a, b) => b.length - a.length);

/** The operators a suffix names (more than one when the operand decides: `contains`). */
export function operatorsOfSuffix(suffix: string): Operator[] {
  return operatorNames.filter((name) => operatorSpec(name).suffix === suffix);
}

const kindLabels: Record<OperandKind, string> = {
  text: 'text fields',
  comparable: 'other comparable fields',
  json: 'whole JSON fields',
  'json-path': 'JSON paths',
};

/** The kinds an operator applies to, as the docs say them. */
function kindsText(kinds: readonly OperandKind[]): string {
  const labels = kinds.includes('text') && kinds.includes('comparable') ? ['comparable fields'] : [];
  for (const kind of kinds)
    if (!(labels.length > 0 && (kind === 'text' || kind === 'comparable'))) labels.push(kindLabels[kind]);
  return labels.join(', ');
}

/**
 * The rows of the operator list in docs/data-tables.md (`| operators | on | meaning |`), in the table's order:
 * neighbouring operators of the same meaning and kinds share a row.
 */
export function operatorDocRows(): string[] {
  const rows: { names: string[]; on: string; doc: string }[] = [];
  for (const name of operatorNames) {
    const spec = operatorSpec(name);
    const spelled = spec.suffix === null ? 'bare `field=value`' : `\`${spec.suffix}\``;
    const on = kindsText(spec.appliesTo);
    const last = rows[rows.length - 1];
    if (last && last.on === on && last.doc === spec.doc) last.names.push(spelled);
    else rows.push({ names: [spelled], on, doc: spec.doc });
  }
  return rows.map((row) => `| ${row.names.join(', ')} | ${row.on} | ${row.doc} |`);
}
