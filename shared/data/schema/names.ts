import { createHash } from 'node:crypto';
import { reservedParameters } from '../common/parameters';

/**
 * Names of data tables and fields, and the PostgreSQL names derived from them. Every user-given name is checked
 * here before it reaches DDL; PostgreSQL names are derived, never taken from input as they are.
 */

/** PostgreSQL's identifier limit (NAMEDATALEN - 1, in bytes; names here are ASCII). */
export const maxIdentifierLength = 63;

/** Lower-case snake case: what PostgreSQL itself folds unquoted names to, and safe in URLs and query strings. */
export const namePattern = /^[a-z][a-z0-9_]*$/;

/**
 * PostgreSQL's reserved key words (both "reserved" categories of the key-word appendix) and the system column
 * names, which no user column may take.
 */
const reservedWords = new Set(
  `all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate collation
  column concurrently constraint create cross current_catalog current_date current_role current_schema current_time
  current_timestamp current_user default deferrable desc distinct do else end except false fetch for foreign freeze
  from full grant group having ilike in initially inner intersect into is isnull join lateral leading left like limit
  localtime localtimestamp natural not notnull null offset on only or order outer overlaps placing primary references
  returning right select session_user similar some symmetric system_user table tablesample then to trailing true
  union unique user using variadic verbose when where window with
  oid tableoid xmin xmax cmin cmax ctid`
    .split(/\s+/)
    .filter(Boolean),
);

export function isReservedWord(name: string): boolean {
  return reservedWords.has(name.toLowerCase());
}

/** Why a name cannot be a table or field name, or undefined when it can. */
export function nameProblem(name: string, kind: 'table' | 'field' | 'index'): string | undefined {
  if (name.length === 0) return `The ${kind} name may not be blank.`;
  if (name.length > maxIdentifierLength)
    return `The ${kind} name "${name}" is longer than ${maxIdentifierLength} characters.`;
  if (!namePattern.test(name))
    return `The ${kind} name "${name}" must start with a lower-case letter and hold only lower-case letters, digits and underscores.`;
  if (name.includes('__'))
    return `The ${kind} name "${name}" may not contain "__", which separates JSON properties and operators in filters.`;
  if (isReservedWord(name)) return `The ${kind} name "${name}" is a reserved SQL word.`;
  if (kind === 'field' && reservedParameters.has(name))
    return `The field name "${name}" is a query parameter of the records API.`;
  if (kind === 'table' && name.endsWith('_edges'))
    return `The table name "${name}" ends with "_edges", which is kept for graph edge tables.`;
  return undefined;
}

function hash(value: string, length = 8): string {
  return createHash('sha256').update(value).digest('hex').slice(0, length);
}

/**
 * A PostgreSQL name from parts joined by `_`; when too long, a readable prefix plus a hash of the whole, so that
 * different inputs keep different names.
 */
export function pgName(parts: readonly string[], reserve = 0): string {
  const joined = parts.join('_');
  const limit = maxIdentifierLength - reserve;
  if (joined.length <= limit) return joined;
  return `${joined.slice(0, limit - 9).replace(/_+$/, '')}_${hash(joined)}`;
}

/**
 * The schema of a site: `site_` and the slug with hyphens as underscores (slugs hold no underscores, so the mapping
 * is one-to-one), shortened with a hash when too long.
 */
export function siteSchemaName(siteSlug: string): string {
  return pgName(['site', siteSlug.replace(/-/g, '_')]);
}

/** Room kept after a table's physical name for the graph's `{table}_edges`. */
const edgesSuffix = '_edges'.length;

/** The physical name of an app's table: `a{app id}_{name}`, so that two apps may both have a `posts` table. */
export function physicalTableName(appId: number, name: string): string {
  return pgName([`a${appId}`, name], edgesSuffix);
}

/** A constraint or index name: unique within the site's schema because it starts with the physical table name. */
export function constraintName(physicalTable: string, ...parts: string[]): string {
  return pgName([physicalTable, ...parts]);
}
