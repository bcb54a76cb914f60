import {
  AppError,
  BadRequestError,
  ConflictError,
  type FieldErrors,
  NotFoundError,
  ValidationError,
} from '../../errors';
import { summarize } from '../../field-errors';
import { type PgErrorFields, pgErrorFields, type Queryable } from '../common/fragments';
import type { CatalogEntry, ConstraintInfo } from '../common/model';
import { findByPhysicalName } from './catalog';

/** The errors of the data API, in the envelope of doc 3 (shared/http/envelopes.ts, style `data`). */

/** 400 `Validation failed` with messages keyed by field. */
export function fail(errors: FieldErrors): never {
  throw new ValidationError({ fields: errors, message: summarize(errors) });
}

export function recordNotFound(id: unknown): NotFoundError {
  return new NotFoundError({
    message: `No record with id "${String(id)}".`,
    code: 'record_not_found',
    title: 'Record not found',
  });
}

export function tableNotFound(name: string, app: string): NotFoundError {
  return new NotFoundError({
    message: `App "${app}" has no table "${name}".`,
    code: 'table_not_found',
    title: 'Table not found',
  });
}

export function appNotFound(app: string): NotFoundError {
  return new NotFoundError({
    message: `This site has no app "${app}".`,
    code: 'app_not_found',
    title: 'App not found',
  });
}

export function deleteRefused(detail: string): AppError {
  return new AppError(403, { code: 'delete_restricted', message: detail, title: 'Cannot delete record' });
}

/** 422: a valid request the table's definition or data does not allow (`{error, detail}`). */
export function unprocessable(code: string, title: string, detail: string): AppError {
  return new AppError(422, { code, message: detail, title });
}

export function foreignKeyViolation(field: string, detail: string): BadRequestError {
  return new BadRequestError({
    code: 'foreign_key_violation',
    message: detail,
    title: 'Foreign key violation',
    extra: { field },
  });
}

export function uniqueViolation(field: string, detail: string): ConflictError {
  return new ConflictError({
    code: 'unique_violation',
    message: detail,
    title: 'Unique constraint violation',
    extra: { field },
  });
}

/** What the failed statement was doing: the same SQLSTATE means different things. */
export type SqlOperation = 'read' | 'write' | 'delete' | 'schema';

export interface SqlErrorContext {
  sql: Queryable;
  schema: string;
  operation: SqlOperation;
  /** The table the statement was about, when known (saves a catalog read). */
  table?: CatalogEntry;
}

async function constraintOf(
  context: SqlErrorContext,
  physical: string | undefined,
  name: string | undefined,
): Promise<{ table: CatalogEntry; info: ConstraintInfo } | undefined> {
  if (!physical || !name) return undefined;
  const table =
    context.table?.physical_name === physical
      ? context.table
      : await findByPhysicalName(context.sql, context.schema, physical);
  const info = table?.layout.constraints[name];
  return table && info ? { table, info } : undefined;
}

const list = (fields: readonly string[]) => fields.join(', ');

type Mapper = (pg: PgErrorFields, context: SqlErrorContext) => unknown | Promise<unknown>;

async function uniqueError(pg: PgErrorFields, context: SqlErrorContext) {
  const found = await constraintOf(context, pg.table_name, pg.constraint_name);
  const fields = found?.info.fields ?? [];
  const field = fields.join(',') || 'non_field_errors';
  const detail =
    context.operation === 'schema'
      ? `Existing records share values of (${list(fields)}): they cannot be made unique.`
      : fields.length === 1
        ? `A record with this ${fields[0]} already exists.`
        : `A record with these values of (${list(fields)}) already exists.`;
  return uniqueViolation(field, detail);
}

async function foreignKeyError(pg: PgErrorFields, context: SqlErrorContext) {
  const found = await constraintOf(context, pg.table_name, pg.constraint_name);
  if (!found) {
    return context.operation === 'delete'
      ? deleteRefused('Other records still reference this record.')
      : foreignKeyViolation('non_field_errors', 'A referenced record does not exist.');
  }
  const { table, info } = found;
  const target = info.references ?? '';
  if (context.operation === 'delete' && info.onDelete === 'SET DEFAULT') {
    return foreignKeyViolation(
      info.fields.join(','),
      `Deleting this record sets ${table.name}.${list(info.fields)} to its default, and no "${target}" record has that value.`,
    );
  }
  if (context.operation === 'delete') {
    return deleteRefused(
      `Records of table "${table.name}" still reference this record through ${list(info.fields)} (ON DELETE ${info.onDelete ?? 'RESTRICT'}).`,
    );
  }
  if (context.table?.physical_name !== table.physical_name) {
    return foreignKeyViolation(
      (info.referencedFields ?? []).join(',') || 'non_field_errors',
      `Records of table "${table.name}" still reference the old value.`,
    );
  }
  return foreignKeyViolation(info.fields.join(','), `No "${target}" record has this ${list(info.fields)}.`);
}

function notNullError(pg: PgErrorFields, context: SqlErrorContext) {
  const field = pg.column_name ?? 'non_field_errors';
  const message =
    context.operation === 'schema'
      ? 'Existing records have no value for this field: give it a default.'
      : 'This field is required.';
  return new ValidationError({ fields: { [field]: [message] }, message: `${field}: a value is required.` });
}

async function checkError(pg: PgErrorFields, context: SqlErrorContext) {
  const found = await constraintOf(context, pg.table_name, pg.constraint_name);
  const field = found?.info.fields.join(',') ?? pg.column_name ?? 'non_field_errors';
  return ValidationError.field(
    field,
    context.operation === 'schema'
      ? 'Existing records do not meet these constraints.'
      : "The value does not meet the field's constraints.",
  );
}

/** Values PostgreSQL cannot take although they passed validation (NUL in text, out of range, bad date). */
const unstorable: Mapper = (pg) =>
  ValidationError.field(pg.column_name ?? 'non_field_errors', 'PostgreSQL cannot store this value.');
const exists: Mapper = () =>
  new ConflictError({
    code: 'already_exists',
    message: 'A table or index with this name already exists.',
    title: 'Already exists',
  });
const concurrent: Mapper = () =>
  new ConflictError({
    code: 'concurrent_change',
    message: 'A concurrent change got in the way: try again.',
    title: 'Concurrent change',
  });

/** SQLSTATE → the API's error. */
const bySqlState: Readonly<Record<string, Mapper>> = {
  '23505': uniqueError,
  // 23001 restrict_violation: what recent PostgreSQL raises for ON DELETE RESTRICT; 23503 for the rest.
  '23001': foreignKeyError,
  '23503': foreignKeyError,
  '23502': notNullError,
  '23514': checkError,
  '22001': unstorable,
  '22003': unstorable,
  '22007': unstorable,
  '22008': unstorable,
  '22021': unstorable,
  '22P02': unstorable,
  '22P05': unstorable,
  '2201B': () =>
    ValidationError.field('constraints.pattern', 'The pattern is not a valid regular expression.'),
  '42P07': exists,
  '42710': exists,
  '2BP01': () =>
    new ConflictError({ code: 'in_use', message: 'Other tables depend on it.', title: 'In use' }),
  '40001': concurrent,
  '40P01': concurrent,
  // statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS): the database's limit, not a server fault.
  '57014': () =>
    new AppError(503, {
      code: 'statement_timeout',
      message: 'The query took longer than the database allows: narrow it down.',
      title: 'Query too slow',
    }),
};

/**
 * Turns a PostgreSQL error into the API's error by its SQLSTATE and structured fields (constraint, table and
 * column names), never by its message text; anything else is returned as it is (a 500). Call it after the
 * transaction has ended: it may read the catalog.
 */
export async function mapSqlError(error: unknown, context: SqlErrorContext): Promise<unknown> {
  const pg = pgErrorFields(error);
  const mapper = pg ? bySqlState[pg.code] : undefined;
  return pg && mapper ? mapper(pg, context) : error;
}
