/** The data screens' model without React: table schemas as the API shows them, paths and labels. */

export interface FieldDef {
  name: string;
  type: string;
  format?: string;
  constraints?: Record<string, unknown> & { required?: boolean; enum?: (string | number | boolean)[] };
  default?: unknown;
}
export interface ForeignKey {
  fields: string | string[];
  reference: { resource: string; fields: string | string[] };
  'x-actions'?: { onDelete?: string };
}
export interface RelationshipType {
  name: string;
  inverse?: string;
  description?: string;
  constraints?: { max_outgoing?: number; max_incoming?: number };
}
export interface TableSchema {
  fields: FieldDef[];
  primaryKey?: string | string[];
  foreignKeys?: ForeignKey[];
  uniqueKeys?: (string | string[])[];
  indexes?: { name?: string; fields: string[]; unique?: boolean }[];
  graph?: { enabled?: boolean; types?: RelationshipType[] };
  hierarchy?: { enabled?: boolean } | boolean;
}
export interface TableInfo {
  name: string;
  description: string;
  schema: TableSchema;
  version: number;
}
export type AnyRecord = Record<string, unknown>;

export const fieldTypes = [
  'string',
  'integer',
  'number',
  'boolean',
  'date',
  'time',
  'datetime',
  'object',
  'array',
  'json',
];
/** Fields the API sets itself: shown, never in a form. */
export const readOnly = new Set(['created_at', 'updated_at', 'deleted_at', 'search_vector']);
export const jsonTypes = new Set(['object', 'array', 'json', 'any']);
/** Types that sort, compare and group (not JSON, not the search vector). */
export const comparableTypes = new Set([
  'string',
  'integer',
  'number',
  'boolean',
  'date',
  'time',
  'datetime',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isField = (value: unknown): value is FieldDef =>
  isObject(value) && typeof value.name === 'string' && typeof value.type === 'string';

/**
 * A table as the API answers it, its schema read (the OpenAPI document types a schema as any object): the fields
 * are checked one by one, the rest of the schema is taken as the API stores it (docs/data-tables.md).
 */
export function readTable(table: {
  name: string;
  description?: string;
  schema: Record<string, unknown>;
  version?: number;
}): TableInfo {
  const { fields, ...rest } = table.schema;
  const schema: TableSchema = { ...rest, fields: Array.isArray(fields) ? fields.filter(isField) : [] };
  return { name: table.name, description: table.description ?? '', schema, version: table.version ?? 0 };
}
export const list = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value : value ? [value] : [];

export function keyOf(info: TableInfo): string {
  return list(info.schema.primaryKey)[0] ?? 'id';
}

export function hasSoftDelete(info: TableInfo): boolean {
  return info.schema.fields.some((field) => field.name === 'is_deleted');
}

export function graphTypes(info: TableInfo): RelationshipType[] {
  return info.schema.graph?.enabled ? (info.schema.graph.types ?? []) : [];
}

/** The key under which a type's descendants come back (`inverse`, or `<name>_inverse`). */
export const inverseOf = (type: RelationshipType) => type.inverse ?? `${type.name}_inverse`;

/** The field that names a record for people: the first text field that is not a key, a reference or the API's. */
export function labelField(info: TableInfo): string | undefined {
  const key = keyOf(info);
  const references = new Set(foreignKeysOf(info).map((reference) => reference.field));
  return info.schema.fields.find(
    (field) =>
      field.type === 'string' &&
      field.format !== 'uuid' &&
      field.name !== key &&
      !readOnly.has(field.name) &&
      !references.has(field.name),
  )?.name;
}

export function recordLabel(info: TableInfo | undefined, record: AnyRecord | null | undefined): string {
  if (!record) return '';
  const field = info ? labelField(info) : undefined;
  const value = field ? record[field] : undefined;
  if (value !== null && value !== undefined && value !== '') return String(value);
  return String(record[info ? keyOf(info) : 'id'] ?? '');
}

/** A single-field foreign key: the field, the table it references and its relationship name for `populate`. */
export interface Reference {
  field: string;
  table: string;
  relation: string;
}

export function foreignKeysOf(info: TableInfo): Reference[] {
  return (info.schema.foreignKeys ?? [])
    .filter((key) => list(key.fields).length === 1)
    .map((key) => {
      const field = list(key.fields)[0] ?? '';
      return {
        field,
        table: key.reference.resource || info.name,
        relation: field.endsWith('_id') ? field.slice(0, -3) : field,
      };
    });
}

/** The key of the record a foreign key names, from a populated record (the field or the embedded record). */
export function referencedKey(
  record: AnyRecord,
  reference: Reference,
  target?: TableInfo,
): string | undefined {
  const value = record[reference.field];
  if (value !== null && typeof value === 'object')
    return String((value as AnyRecord)[target ? keyOf(target) : 'id'] ?? '');
  if (value === null || value === undefined) {
    const embedded = record[reference.relation];
    if (embedded && typeof embedded === 'object')
      return String((embedded as AnyRecord)[target ? keyOf(target) : 'id'] ?? '');
    return undefined;
  }
  return String(value);
}

export function referencedRecord(record: AnyRecord, reference: Reference): AnyRecord | null {
  const embedded = record[reference.relation];
  return embedded && typeof embedded === 'object' ? (embedded as AnyRecord) : null;
}

export function displayValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** What the person may do on the site's data, from the API's own verdicts (the site actions of their routes). */
export interface May {
  /** Create tables, change a schema (`site:configure`). */
  configure: boolean;
  /** Create, edit, import, restore records; add relationships (`site:change`). */
  change: boolean;
  /** Delete records (one, selected, for good) and relationships (`site:delete`). */
  delete: boolean;
}
