import { ConflictError, type FieldErrors, NotFoundError, ValidationError } from '../../errors';
import { newFieldErrors, summarize } from '../../field-errors';
import type { Sql } from '../../sql/client';
import { deleteTable, findTable, insertTable, listTables, lockSiteSchema, updateTable } from './catalog';
import { ddl, ident, runDdl } from './ddl';
import { edgesTableName, planEdgesTable } from './edge-table';
import { mapSqlError, tableNotFound, unprocessable } from './errors';
import { changeGraph, type TableChanges } from './graph-changes';

export type { TableChanges } from './graph-changes';

import { qualified } from '../common/fragments';
import type { CatalogEntry, FieldDef, TableLayout, TableSchema, TableView } from '../common/model';
import { hasGraph } from '../schema/graph';
import { nameProblem, physicalTableName } from '../schema/names';
import { anchored, loadPatternEngineFor, patternProblem } from '../schema/patterns';
import { checkTableSchema, type RawTableSchema } from '../schema/table-checks';
import { hasDatabaseDefault } from '../schema/validator';
import { ownerOf, type TableScope } from './data-table';
import { indexName, indexStatement, planAddField, planCreateTable } from './layout';

/**
 * Table schema management: create, read, list, evolve (add or drop a field or an index, change the description)
 * and drop the data tables of an app. Every change runs its DDL and its catalog write in one transaction, with
 * the site's registry row locked so that one site's schema changes never interleave.
 */

export function tableView(scope: TableScope, entry: CatalogEntry): TableView {
  return {
    name: entry.name,
    app: scope.app.slug,
    description: entry.description,
    schema: entry.definition,
    version: entry.version,
    created_at: new Date(entry.created_at).toISOString(),
    updated_at: new Date(entry.updated_at).toISOString(),
  };
}

function fail(errors: FieldErrors): never {
  throw new ValidationError({ fields: errors, message: summarize(errors) });
}

function prefixed(errors: FieldErrors, prefix: string): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([key, messages]) => [`${prefix}${key}`, messages]));
}

/**
 * Checks that each pattern is one the validator's engine (RE2) takes and that PostgreSQL's regular expressions
 * accept it too (its dialect is not RE2's), before the DDL: the error then names the field.
 */
async function checkPatterns(sql: Sql, fields: readonly FieldDef[], pathOf: (index: number) => string) {
  await loadPatternEngineFor(fields);
  const errors = newFieldErrors();
  for (const [index, field] of fields.entries()) {
    const pattern = field.constraints?.pattern;
    if (pattern === undefined || field.type !== 'string') continue;
    const problem = patternProblem(field.name, pattern);
    if (problem) {
      errors[`${pathOf(index)}.constraints.pattern`] = [problem];
      continue;
    }
    try {
      await sql`SELECT '' ~ ${anchored(pattern)} AS matches`;
    } catch (error) {
      if ((error as { code?: string }).code !== '2201B') throw error;
      errors[`${pathOf(index)}.constraints.pattern`] = [
        `Field "${field.name}": PostgreSQL does not accept this regular expression.`,
      ];
    }
  }
  if (Object.keys(errors).length > 0) fail(errors);
}

/** `pending`: the table as the change will leave it, so that an error of its DDL can name the field. */
type Change<T> = (tx: Sql, schema: string, pending: (entry: CatalogEntry) => void) => Promise<T>;

/** Runs a schema change in one transaction with the site locked; database errors mapped afterwards. */
async function change<T>(sql: Sql, scope: TableScope, work: Change<T>): Promise<T> {
  let table: CatalogEntry | undefined;
  try {
    return (await sql.begin(async (tx) => {
      const schema = await lockSiteSchema(tx, ownerOf(scope));
      return work(tx as unknown as Sql, schema, (entry) => {
        table = entry;
      });
    })) as T;
  } catch (error) {
    throw await mapSqlError(error, { sql, schema: scope.schema, operation: 'schema', table });
  }
}

async function lockedTable(tx: Sql, scope: TableScope, schema: string, name: string): Promise<CatalogEntry> {
  const entry = await findTable(tx, schema, ownerOf(scope), name, 'update');
  if (!entry) throw tableNotFound(name, scope.app.slug);
  return entry;
}

/** The tables of the app that reference `name` through a foreign key (other than itself). */
function referrers(tables: readonly CatalogEntry[], name: string): { table: string; fields: string[] }[] {
  return tables
    .filter((entry) => entry.name !== name)
    .flatMap((entry) =>
      entry.definition.foreignKeys
        .filter((fk) => fk.reference.resource === name)
        .map((fk) => ({ table: entry.name, fields: fk.reference.fields })),
    );
}

export interface NewTable {
  name: string;
  description?: string;
  schema: RawTableSchema;
}

export async function createTable(sql: Sql, scope: TableScope, input: NewTable): Promise<TableView> {
  const nameIssue = nameProblem(input.name, 'table');
  if (nameIssue) fail({ name: [nameIssue] });
  await checkPatterns(sql, input.schema.fields, (index) => `schema.fields.${index}`);
  return change(sql, scope, async (tx, schema) => {
    if (await findTable(tx, schema, ownerOf(scope), input.name))
      throw new ConflictError({
        code: 'table_exists',
        message: `App "${scope.app.slug}" already has a table "${input.name}".`,
        title: 'Table exists',
      });
    const others = new Map(
      (await listTables(tx, schema, ownerOf(scope))).map((entry) => [entry.name, entry]),
    );
    const checked = checkTableSchema(input.schema, input.name, (name) => others.get(name)?.definition);
    if (Object.keys(checked.errors).length > 0) fail(prefixed(checked.errors, 'schema.'));
    const physical = physicalTableName(scope.app.id, input.name);
    const plan = planCreateTable(
      schema,
      physical,
      checked.schema,
      (name) => others.get(name)?.physical_name,
      input.name,
    );
    for (const statement of plan.statements) await runDdl(tx, statement);
    if (hasGraph(checked.schema)) {
      for (const statement of planEdgesTable(schema, physical, checked.schema)) await runDdl(tx, statement);
      plan.layout.edges = edgesTableName(physical);
    }
    const entry = await insertTable(tx, schema, {
      owner: ownerOf(scope),
      name: input.name,
      physicalName: physical,
      description: input.description ?? '',
      definition: checked.schema,
      layout: plan.layout,
    });
    return tableView(scope, entry);
  });
}

export async function getTable(sql: Sql, scope: TableScope, name: string): Promise<TableView> {
  const entry = await findTable(sql, scope.schema, ownerOf(scope), name);
  if (!entry) throw tableNotFound(name, scope.app.slug);
  return tableView(scope, entry);
}

export async function listTableViews(sql: Sql, scope: TableScope): Promise<TableView[]> {
  return (await listTables(sql, scope.schema, ownerOf(scope))).map((entry) => tableView(scope, entry));
}

/** Changes a table's description and its graph (PATCH of a table). */
export async function changeTable(
  sql: Sql,
  scope: TableScope,
  name: string,
  changes: TableChanges,
): Promise<TableView> {
  return change(sql, scope, async (tx, schema) => {
    const entry = await lockedTable(tx, scope, schema, name);
    const graph = await changeGraph(tx, schema, entry, changes);
    const update: Parameters<typeof updateTable>[3] = { ...graph };
    if (changes.description !== undefined) update.description = changes.description;
    return tableView(scope, await updateTable(tx, schema, entry.id, update));
  });
}

/** Drops a table and its records; refused while other tables of the app reference it. */
export async function dropTable(sql: Sql, scope: TableScope, name: string): Promise<void> {
  await change(sql, scope, async (tx, schema) => {
    const entry = await lockedTable(tx, scope, schema, name);
    const using = referrers(await listTables(tx, schema, ownerOf(scope)), name);
    if (using.length > 0)
      throw new ConflictError({
        code: 'table_referenced',
        message: `Table "${name}" is referenced by ${using.map((use) => `"${use.table}"`).join(', ')}: drop or change those tables first.`,
        title: 'Table is referenced',
      });
    // The edge table references the records: it goes first.
    if (entry.layout.edges) await runDdl(tx, ddl`DROP TABLE ${ident(schema)}.${ident(entry.layout.edges)}`);
    await runDdl(tx, ddl`DROP TABLE ${ident(schema)}.${ident(entry.physical_name)}`);
    await deleteTable(tx, schema, entry.id);
  });
}

/**
 * Adds a field. A required field without a default needs an empty table (existing records would have no value);
 * unique and check constraints are checked against the existing records by PostgreSQL.
 */
export async function addField(sql: Sql, scope: TableScope, name: string, raw: FieldDef): Promise<TableView> {
  await checkPatterns(sql, [raw], () => '');
  return change(sql, scope, async (tx, schema, pending) => {
    const entry = await lockedTable(tx, scope, schema, name);
    const definition = entry.definition;
    if (definition.fields.some((field) => field.name === raw.name))
      fail({ name: [`Table "${name}" already has a field "${raw.name}".`] });
    const others = new Map(
      (await listTables(tx, schema, ownerOf(scope))).map((other) => [other.name, other]),
    );
    const position = definition.fields.length;
    await loadPatternEngineFor(definition.fields);
    const checked = checkTableSchema(
      { ...definition, fields: [...definition.fields, raw] },
      name,
      (other) => others.get(other)?.definition,
    );
    if (Object.keys(checked.errors).length > 0) {
      const own = `fields.${position}.`;
      fail(
        Object.fromEntries(
          Object.entries(checked.errors).map(([key, messages]) => [
            key.startsWith(own) ? key.slice(own.length) : key,
            messages,
          ]),
        ),
      );
    }
    const field = checked.schema.fields[position] as FieldDef;
    if (field.constraints?.required && !hasDatabaseDefault(field, checked.schema)) {
      const [any] = await tx`SELECT 1 AS found FROM ${qualified(tx, schema, entry.physical_name)} LIMIT 1`;
      if (any)
        throw unprocessable(
          'required_field_needs_default',
          'Table has records',
          `Table "${name}" has records: a required field added to it needs a default for them.`,
        );
    }
    const plan = planAddField(schema, entry.physical_name, field, checked.schema, entry.layout);
    pending({ ...entry, layout: plan.layout });
    for (const statement of plan.statements) await runDdl(tx, statement);
    return tableView(
      scope,
      await updateTable(tx, schema, entry.id, { definition: checked.schema, layout: plan.layout }),
    );
  });
}

/** What keeps a field from being dropped, if anything. */
function fieldUses(definition: TableSchema, field: string, others: readonly CatalogEntry[], table: string) {
  const uses: string[] = [];
  if (definition.primaryKey.includes(field)) uses.push('it is the primary key');
  if (definition.uniqueKeys.some((unique) => unique.includes(field))) uses.push('a unique key includes it');
  if (definition.indexes.some((index) => index.fields.includes(field))) uses.push('an index includes it');
  if (definition.foreignKeys.some((fk) => fk.fields.includes(field))) uses.push('a foreign key uses it');
  if (definition.fields.some((other) => other['x-search']?.fields.includes(field)))
    uses.push('the search_vector is built from it');
  for (const use of referrers(others, table))
    if (use.fields.includes(field)) uses.push(`table "${use.table}" references it`);
  if (
    definition.foreignKeys.some(
      (fk) => fk.reference.resource === table && fk.reference.fields.includes(field),
    )
  )
    uses.push('a foreign key of this table references it');
  return uses;
}

/** Drops a field and its values; refused while a key, an index, a foreign key or the search vector uses it. */
export async function dropField(
  sql: Sql,
  scope: TableScope,
  name: string,
  fieldName: string,
): Promise<TableView> {
  return change(sql, scope, async (tx, schema) => {
    const entry = await lockedTable(tx, scope, schema, name);
    const definition = entry.definition;
    if (!definition.fields.some((field) => field.name === fieldName))
      throw new NotFoundError({
        message: `Table "${name}" has no field "${fieldName}".`,
        code: 'field_not_found',
        title: 'Field not found',
      });
    const uses = fieldUses(definition, fieldName, await listTables(tx, schema, ownerOf(scope)), name);
    if (uses.length > 0)
      throw new ConflictError({
        code: 'field_in_use',
        message: `Field "${fieldName}" cannot be dropped: ${uses.join('; ')}.`,
        title: 'Field in use',
      });
    await runDdl(
      tx,
      ddl`ALTER TABLE ${ident(schema)}.${ident(entry.physical_name)} DROP COLUMN ${ident(fieldName)}`,
    );
    const layout: TableLayout = {
      ...entry.layout,
      constraints: Object.fromEntries(
        Object.entries(entry.layout.constraints).filter(([, info]) => !info.fields.includes(fieldName)),
      ),
    };
    const next: TableSchema = {
      ...definition,
      fields: definition.fields.filter((field) => field.name !== fieldName),
    };
    return tableView(scope, await updateTable(tx, schema, entry.id, { definition: next, layout }));
  });
}

export interface NewIndex {
  name?: string;
  fields: string | string[];
  unique?: boolean;
}

/** Adds an index; a unique one is refused (409) while existing records share values. */
export async function addIndex(sql: Sql, scope: TableScope, name: string, raw: NewIndex): Promise<TableView> {
  return change(sql, scope, async (tx, schema, pending) => {
    const entry = await lockedTable(tx, scope, schema, name);
    const definition = entry.definition;
    const position = definition.indexes.length;
    await loadPatternEngineFor(definition.fields);
    const checked = checkTableSchema(
      { ...definition, indexes: [...definition.indexes, raw] },
      name,
      () => undefined,
    );
    const own = `indexes.${position}.`;
    const errors = Object.fromEntries(
      Object.entries(checked.errors)
        .filter(([key]) => key.startsWith(own))
        .map(([key, messages]) => [key.slice(own.length), messages]),
    );
    if (Object.keys(errors).length > 0) fail(errors);
    const index = checked.schema.indexes[position];
    if (!index) throw new Error('index missing after normalization');
    if (definition.indexes.some((other) => other.name === index.name))
      fail({ name: [`Table "${name}" already has an index "${index.name}".`] });
    const layout: TableLayout = { ...entry.layout, constraints: { ...entry.layout.constraints } };
    const statement = indexStatement(schema, entry.physical_name, index, layout);
    pending({ ...entry, layout });
    await runDdl(tx, statement);
    const next: TableSchema = { ...definition, indexes: [...definition.indexes, index] };
    return tableView(scope, await updateTable(tx, schema, entry.id, { definition: next, layout }));
  });
}

export async function dropIndex(
  sql: Sql,
  scope: TableScope,
  name: string,
  index: string,
): Promise<TableView> {
  return change(sql, scope, async (tx, schema) => {
    const entry = await lockedTable(tx, scope, schema, name);
    const definition = entry.definition;
    if (!definition.indexes.some((other) => other.name === index))
      throw new NotFoundError({
        message: `Table "${name}" has no index "${index}".`,
        code: 'index_not_found',
        title: 'Index not found',
      });
    const physical = indexName(entry.physical_name, index);
    await runDdl(tx, ddl`DROP INDEX ${ident(schema)}.${ident(physical)}`);
    const { [physical]: _, ...constraints } = entry.layout.constraints;
    const next: TableSchema = {
      ...definition,
      indexes: definition.indexes.filter((other) => other.name !== index),
    };
    return tableView(
      scope,
      await updateTable(tx, schema, entry.id, {
        definition: next,
        layout: { ...entry.layout, constraints },
      }),
    );
  });
}
