/**
 * The data-tables domain: a table schema (Frictionless Table Schema, docs/data-tables.md), how it is laid out in
 * PostgreSQL, and the catalog entry that ties the two together.
 */

/** Field types a table schema may declare; anything else is refused. */
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
  'any',
  'tsvector',
] as const;

export type FieldType = (typeof fieldTypes)[number];

/** Formats of `string` fields (Frictionless: `default`, `email`, `uri`, `uuid`). */
export const stringFormats = ['default', 'email', 'uri', 'uuid'] as const;

export type StringFormat = (typeof stringFormats)[number];

export type EnumValue = string | number | boolean;

export interface FieldConstraints {
  required?: boolean;
  unique?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  enum?: EnumValue[];
}

/** The text search languages a `search_vector` may use (PostgreSQL's built-in configurations). */
export const searchLanguages = [
  'simple',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'hungarian',
  'italian',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'turkish',
] as const;

export interface SearchSource {
  fields: string[];
  language: string;
}

export interface FieldDef {
  name: string;
  type: FieldType;
  format?: string;
  title?: string;
  description?: string;
  example?: unknown;
  constraints?: FieldConstraints;
  default?: unknown;
  /** Left out of record events' payloads (docs/events.md); the API still shows it to whoever may read it. */
  sensitive?: boolean;
  /** Only on the `search_vector` field: the string fields it is built from. */
  'x-search'?: SearchSource;
}

export const onDeleteRules = ['CASCADE', 'SET NULL', 'SET DEFAULT', 'RESTRICT', 'NO ACTION'] as const;

export type OnDelete = (typeof onDeleteRules)[number];

export interface ForeignKeyDef {
  fields: string[];
  reference: { resource: string; fields: string[] };
  'x-actions': { onDelete: OnDelete };
}

export interface IndexDef {
  name: string;
  fields: string[];
  unique: boolean;
}

export interface RelationshipType {
  name: string;
  inverse?: string;
  description?: string;
  constraints?: { max_outgoing?: number; max_incoming?: number };
}

/** A normalized table schema: every list present, `primaryKey` always one field. */
export interface TableSchema {
  fields: FieldDef[];
  primaryKey: string[];
  uniqueKeys: string[][];
  foreignKeys: ForeignKeyDef[];
  indexes: IndexDef[];
  hierarchy?: boolean;
  graph?: { enabled?: boolean; types?: RelationshipType[] };
}

export type ConstraintKind = 'primary' | 'unique' | 'index' | 'foreign' | 'check';

/** What a named PostgreSQL constraint or index enforces, so that database errors can name the field. */
export interface ConstraintInfo {
  kind: ConstraintKind;
  fields: string[];
  /** Foreign keys: the rule, the referenced table (logical name), its physical name and the referenced fields. */
  onDelete?: OnDelete;
  references?: string;
  referencesPhysical?: string;
  referencedFields?: string[];
}

/** The physical side of a table: its PostgreSQL name and the names of its constraints and indexes. */
export interface TableLayout {
  table: string;
  /** The graph's edge table (`{table}_edges`), once the table has a graph. */
  edges?: string;
  constraints: Record<string, ConstraintInfo>;
}

/** One row of a site's catalog. */
export interface CatalogEntry {
  id: string;
  app_id: number;
  name: string;
  physical_name: string;
  description: string;
  definition: TableSchema;
  layout: TableLayout;
  version: number;
  /** RFC 3339 in UTC, as the data plane's client reads timestamps (shared/api/datetimes.ts). */
  created_at: string;
  updated_at: string;
  /** The identities of the site and app the row belongs to (tables/identity.ts); null before recorded. */
  site_identity: string | null;
  app_identity: string | null;
}

/** Fields with a meaning of their own: the platform maintains them. */
export const systemFields = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  isDeleted: 'is_deleted',
  searchVector: 'search_vector',
} as const;

/** A table as the API shows it. */
export interface TableView {
  name: string;
  app: string;
  description: string;
  schema: TableSchema;
  version: number;
  created_at: string;
  updated_at: string;
}
