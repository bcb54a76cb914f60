import type { FieldErrors } from '../../errors';
import { typeRule } from '../common/field-types';
import {
  type FieldDef,
  type ForeignKeyDef,
  fieldTypes,
  type IndexDef,
  type OnDelete,
  searchLanguages,
  systemFields,
  type TableSchema,
} from '../common/model';
import { checkField, checkSystemField, normalizeField } from './field-checks';
import { graphProblems } from './graph';
import { nameProblem } from './names';
import { Problems } from './problems';
import { hasUniqueSet } from './unique-sets';

/** What `checkTableSchema` needs to know about the other tables of the app (foreign-key targets). */
export type TableLookup = (name: string) => TableSchema | undefined;

export interface SchemaCheck {
  schema: TableSchema;
  errors: FieldErrors;
}

function list(value: unknown): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function checkSearch(schema: TableSchema, problems: Problems, at: (index: number) => string): void {
  schema.fields.forEach((field, index) => {
    if (field.type !== 'tsvector') return;
    const path = `${at(index)}.x-search`;
    const search = field['x-search'];
    if (!search) {
      problems.add(path, `Field "${field.name}" needs x-search: the string fields it is built from.`);
      return;
    }
    if (!(searchLanguages as readonly string[]).includes(search.language))
      problems.add(
        `${path}.language`,
        `Unknown language "${search.language}". Use one of: ${searchLanguages.join(', ')}.`,
      );
    for (const source of search.fields) {
      const target = schema.fields.find((candidate) => candidate.name === source);
      if (target?.type !== 'string')
        problems.add(`${path}.fields`, `"${source}" is not a string field of this table.`);
    }
  });
}

function checkFieldList(
  schema: TableSchema,
  fields: string[],
  path: string,
  problems: Problems,
  what: string,
): boolean {
  let ok = fields.length > 0;
  if (!ok) problems.add(path, `Name at least one field for ${what}.`);
  if (new Set(fields).size !== fields.length) {
    problems.add(path, `A field is named twice in ${what}.`);
    ok = false;
  }
  for (const name of fields) {
    const field = schema.fields.find((candidate) => candidate.name === name);
    if (!field) {
      problems.add(path, `Unknown field "${name}" in ${what}.`);
      ok = false;
    } else if (!typeRule(field.type).comparable) {
      problems.add(path, `Field "${name}" of type ${field.type} cannot be used in ${what}.`);
      ok = false;
    }
  }
  return ok;
}

function checkForeignKey(
  schema: TableSchema,
  tableName: string,
  fk: ForeignKeyDef,
  path: string,
  lookup: TableLookup,
  problems: Problems,
): void {
  if (!checkFieldList(schema, fk.fields, `${path}.fields`, problems, 'a foreign key')) return;
  const resource = fk.reference.resource;
  const self = resource === '' || resource === tableName;
  const target = self ? schema : lookup(resource);
  if (!target) {
    problems.add(`${path}.reference.resource`, `There is no table "${resource}" in this app.`);
    return;
  }
  const targetName = self ? tableName : resource;
  const refs = fk.reference.fields;
  if (refs.length !== fk.fields.length) {
    problems.add(`${path}.reference.fields`, 'A foreign key names as many fields as it references.');
    return;
  }
  if (!hasUniqueSet(target, refs)) {
    problems.add(
      `${path}.reference.fields`,
      `(${refs.join(', ')}) is not the primary key or a unique key of table "${targetName}".`,
    );
    return;
  }
  fk.fields.forEach((name, index) => {
    const field = schema.fields.find((candidate) => candidate.name === name) as FieldDef;
    const ref = target.fields.find((candidate) => candidate.name === refs[index]) as FieldDef;
    if (field.type !== ref.type || (field.format === 'uuid') !== (ref.format === 'uuid'))
      problems.add(
        `${path}.fields`,
        `Field "${name}" (${describeType(field)}) cannot reference "${targetName}.${ref.name}" (${describeType(ref)}).`,
      );
  });
  const rule = fk['x-actions'].onDelete;
  for (const name of fk.fields) {
    const field = schema.fields.find((candidate) => candidate.name === name) as FieldDef;
    const nullable = !field.constraints?.required && schema.primaryKey[0] !== name;
    if (rule === 'SET NULL' && !nullable)
      problems.add(
        `${path}.x-actions.onDelete`,
        `SET NULL needs field "${name}" to be optional (not required).`,
      );
    if (rule === 'SET DEFAULT' && !nullable && field.default === undefined)
      problems.add(
        `${path}.x-actions.onDelete`,
        `SET DEFAULT needs a default for the required field "${name}".`,
      );
  }
}

function describeType(field: FieldDef): string {
  return field.format && field.format !== 'default' ? `${field.type}/${field.format}` : field.type;
}

/** Raw input, as the route's JSON Schema lets it through. */
export interface RawTableSchema {
  fields: FieldDef[];
  primaryKey?: string | string[];
  uniqueKeys?: (string | string[])[];
  foreignKeys?: {
    fields: string | string[];
    reference: { resource: string; fields: string | string[] };
    'x-actions'?: { onDelete?: OnDelete };
  }[];
  indexes?: { name?: string; fields: string | string[]; unique?: boolean }[];
  hierarchy?: boolean;
  graph?: TableSchema['graph'];
}

/**
 * The schema as stored: lists for single names, default rules and index names. A table without a declared key gets
 * `id`: its `id` field when it has one, else a generated UUID put first. `at` names a field's position as the client
 * sent it, also when an `id` field was put in front.
 */
function normalizeTableSchema(raw: RawTableSchema): { schema: TableSchema; at: (index: number) => string } {
  const fields = raw.fields.map(normalizeField);
  let primaryKey = list(raw.primaryKey);
  let shift = 0;
  if (primaryKey.length === 0) {
    if (!fields.some((field) => field.name === 'id')) {
      fields.unshift({ name: 'id', type: 'string', format: 'uuid' });
      shift = 1;
    }
    primaryKey = ['id'];
  }
  const schema: TableSchema = {
    fields,
    primaryKey,
    uniqueKeys: (raw.uniqueKeys ?? []).map(list),
    foreignKeys: (raw.foreignKeys ?? []).map((fk) => ({
      fields: list(fk.fields),
      reference: { resource: fk.reference.resource, fields: list(fk.reference.fields) },
      'x-actions': { onDelete: fk['x-actions']?.onDelete ?? 'RESTRICT' },
    })),
    indexes: (raw.indexes ?? []).map(
      (index): IndexDef => ({
        name: index.name ?? `${list(index.fields).join('_')}_idx`,
        fields: list(index.fields),
        unique: index.unique ?? false,
      }),
    ),
  };
  if (raw.hierarchy !== undefined) schema.hierarchy = raw.hierarchy;
  if (raw.graph !== undefined) schema.graph = raw.graph;
  return { schema, at: (index) => `fields.${index - shift}` };
}

/** One primary key, a string or integer field of the client's own; unique keys name fields of the table. */
function checkKeys(schema: TableSchema, problems: Problems): void {
  const { primaryKey } = schema;
  if (primaryKey.length > 1)
    problems.add(
      'primaryKey',
      'Composite primary keys are not supported: use one key field and declare the combination in uniqueKeys.',
    );
  const key = schema.fields.find((field) => field.name === primaryKey[0]);
  if (!key) problems.add('primaryKey', `The primary key "${primaryKey[0]}" is not a field of the table.`);
  else if (key.type !== 'string' && key.type !== 'integer')
    problems.add('primaryKey', `The primary key "${key.name}" must be of type string or integer.`);
  else if (Object.values(systemFields).includes(key.name as never))
    problems.add('primaryKey', `The platform field "${key.name}" cannot be the primary key.`);
  schema.uniqueKeys.forEach((unique, index) => {
    checkFieldList(schema, unique, `uniqueKeys.${index}`, problems, 'a unique key');
  });
}

/** Index names are valid and distinct, and each index names fields of the table. */
function checkIndexes(schema: TableSchema, problems: Problems): void {
  const indexNames = new Set<string>();
  schema.indexes.forEach((index, position) => {
    const path = `indexes.${position}`;
    const issue = nameProblem(index.name, 'index');
    if (issue) problems.add(`${path}.name`, issue);
    if (indexNames.has(index.name)) problems.add(`${path}.name`, `Index "${index.name}" is declared twice.`);
    indexNames.add(index.name);
    checkFieldList(schema, index.fields, `${path}.fields`, problems, 'an index');
  });
}

/**
 * Normalizes a table schema and checks everything about it that JSON Schema cannot: names, types, formats,
 * constraints against types, defaults against constraints, system fields, keys, foreign keys (against the other
 * tables of the app) and indexes. Error keys are paths in the schema (`fields.2.type`); messages name the field.
 */
export function checkTableSchema(raw: RawTableSchema, tableName: string, lookup: TableLookup): SchemaCheck {
  const problems = new Problems();
  const { schema, at } = normalizeTableSchema(raw);
  const { fields, primaryKey } = schema;
  const seen = new Map<string, number>();
  fields.forEach((field, index) => {
    const path = at(index);
    const earlier = seen.get(field.name);
    if (earlier !== undefined) problems.add(`${path}.name`, `Field "${field.name}" is declared twice.`);
    seen.set(field.name, index);
    checkField(field, path, primaryKey[0] === field.name, problems);
    if ((fieldTypes as readonly string[]).includes(field.type)) checkSystemField(field, path, problems);
  });
  if (!problems.empty) return { schema, errors: problems.errors };

  checkKeys(schema, problems);
  checkIndexes(schema, problems);
  checkSearch(schema, problems, at);
  for (const [path, message] of graphProblems(schema)) problems.add(path, message);
  if (fields.filter((field) => field.type === 'tsvector').length > 1)
    problems.add('fields', 'A table has at most one tsvector field.');
  if (problems.empty)
    schema.foreignKeys.forEach((fk, index) => {
      checkForeignKey(schema, tableName, fk, `foreignKeys.${index}`, lookup, problems);
    });
  return { schema, errors: problems.errors };
}
