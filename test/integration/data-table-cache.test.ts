import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteSchemaName } from '../../shared/data/schema/names';
import { createTable, dataPath, insert, tablePath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * The compiled definitions a container keeps (shared/data/tables/data-table.ts `compileTable`) when PostgreSQL is
 * restored to an earlier moment (docs/data-model.md, "Restoring the two stores"): a later change can bring a table
 * back to a version number it had before the restore, with another definition. That definition gets its own
 * compilation, never the one this container made of the earlier definition of the same version.
 */

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
});
afterAll(async () => {
  await platform.stop();
});

interface CatalogRow {
  physical_name: string;
  definition: unknown;
  layout: unknown;
  version: number;
  updated_at: string;
}

/** The table's catalog row as PostgreSQL holds it. */
async function catalogRow(name: string): Promise<CatalogRow> {
  const sql = platform.deps.sql();
  const schema = siteSchemaName(tenant.site.slug);
  const [row] = await sql<CatalogRow[]>`SELECT physical_name, definition, layout, version, updated_at
    FROM ${sql(schema)}.catalog WHERE app_id = ${tenant.app.id} AND name = ${name}`;
  if (!row) throw new Error(`no catalog row for ${name}`);
  return row;
}

/**
 * PostgreSQL as a backup taken at `moment` left it, for one table: the column added since is gone, so are the
 * records written since, and the catalog row is the one of that moment again (definition, layout, version and
 * timestamp).
 */
async function restoreTable(
  name: string,
  moment: CatalogRow,
  addedSince: string,
  kept: string[],
): Promise<void> {
  const sql = platform.deps.sql();
  const schema = siteSchemaName(tenant.site.slug);
  await sql.begin(async (tx) => {
    await tx`DELETE FROM ${tx(schema)}.${tx(moment.physical_name)} WHERE NOT (id = ANY(${kept}::uuid[]))`;
    await tx`ALTER TABLE ${tx(schema)}.${tx(moment.physical_name)} DROP COLUMN ${tx(addedSince)}`;
    await tx`UPDATE ${tx(schema)}.catalog SET definition = ${tx.json(moment.definition as never)},
      layout = ${tx.json(moment.layout as never)}, version = ${moment.version},
      updated_at = ${moment.updated_at}::timestamptz
      WHERE app_id = ${tenant.app.id} AND name = ${name}`;
  });
}

async function addField(table: string, field: Record<string, unknown>): Promise<number> {
  const response = await tenant.owner.post(`${tablePath(tenant.app.slug, table)}fields/`, field);
  expect(response.status, response.text).toBe(201);
  return response.body.data.version as number;
}

describe('a table that reaches a version again after PostgreSQL was restored to an earlier moment', () => {
  it('is checked and shown by its new definition, not by the compilation of the earlier one', async () => {
    const app = tenant.app.slug;
    const path = dataPath(app, 'notes');
    await createTable(tenant.owner, app, 'notes', { fields: [{ name: 'text', type: 'string' }] });
    const before = await insert(tenant.owner, app, 'notes', { text: 'before' });
    const backup = await catalogRow('notes');

    // After the backup: a field `rating`, which this container compiles (a write and a read with it).
    const lost = await addField('notes', { name: 'rating', type: 'integer' });
    await insert(tenant.owner, app, 'notes', { text: 'rated', rating: 5 });
    expect((await tenant.owner.get(path)).body.data).toHaveLength(2);

    // Restored to the backup; this container reads the table as it is now (one version before `lost`).
    await restoreTable('notes', backup, 'rating', [before.id]);
    const restored = await tenant.owner.get(path);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.data).toEqual([{ id: before.id, text: 'before' }]);

    // Another change reaches the same version number with another definition: a field `mood`, no `rating`.
    expect(
      await addField('notes', { name: 'mood', type: 'string', constraints: { enum: ['calm', 'glad'] } }),
    ).toBe(lost);
    const created = await tenant.owner.post(path, { text: 'after', mood: 'glad' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ text: 'after', mood: 'glad' });
    expect(created.body.data).not.toHaveProperty('rating');
    // The new field's own check applies.
    const refused = await tenant.owner.post(path, { text: 'after', mood: 'cross' });
    expect(refused.status, refused.text).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('mood');
    // The field of the lost definition is unknown.
    const unknown = await tenant.owner.post(path, { text: 'after', rating: 3 });
    expect(unknown.status, unknown.text).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('rating');

    const list = await tenant.owner.get(path);
    expect(list.status, list.text).toBe(200);
    expect(
      list.body.data.map((note: { text: string; mood: string | null }) => [note.text, note.mood]),
    ).toEqual(
      expect.arrayContaining([
        ['before', null],
        ['after', 'glad'],
      ]),
    );
    for (const note of list.body.data) expect(note).not.toHaveProperty('rating');
  });
});

/**
 * A table whose next version this container has cached (a change that left the columns as they are, then reads),
 * restored to the moment before that change and changed again (a field `mood`) before this container reads it: the
 * table has the version number this container holds, with another definition.
 */
async function cachedThenChangedAgain(name: string): Promise<{ path: string; before: { id: string } }> {
  const app = tenant.app.slug;
  const path = dataPath(app, name);
  await createTable(tenant.owner, app, name, { fields: [{ name: 'text', type: 'string' }] });
  const before = await insert(tenant.owner, app, name, { text: 'before' });
  const backup = await catalogRow(name);
  const patched = await tenant.owner.patch(tablePath(app, name), { description: 'lost with the restore' });
  expect(patched.status, patched.text).toBe(200);
  expect((await tenant.owner.get(path)).body.data).toEqual([{ id: before.id, text: 'before' }]);
  expect((await tenant.owner.get(`${path}${before.id}/`)).body.data).toEqual({
    id: before.id,
    text: 'before',
  });
  await insert(tenant.owner, app, name, { text: 'cached' });

  const sql = platform.deps.sql();
  const schema = siteSchemaName(tenant.site.slug);
  await sql.begin(async (tx) => {
    await tx`DELETE FROM ${tx(schema)}.${tx(backup.physical_name)} WHERE id <> ${before.id}`;
    await tx`UPDATE ${tx(schema)}.catalog SET description = '', version = ${backup.version},
      updated_at = ${backup.updated_at}::timestamptz WHERE app_id = ${tenant.app.id} AND name = ${name}`;
  });
  expect(await addField(name, { name: 'mood', type: 'string' })).toBe(patched.body.data.version);
  return { path, before };
}

describe('a container that still holds the lost version when the table reaches it again', () => {
  // Each route first, while the definition this container holds is the lost one: its statement tells.
  it('lists records by the new definition', async () => {
    const { path, before } = await cachedThenChangedAgain('memos_list');
    expect((await tenant.owner.get(path)).body.data).toEqual([{ id: before.id, text: 'before', mood: null }]);
  });

  it('reads a record by its key by the new definition', async () => {
    const { path, before } = await cachedThenChangedAgain('memos_key');
    expect((await tenant.owner.get(`${path}${before.id}/`)).body.data).toEqual({
      id: before.id,
      text: 'before',
      mood: null,
    });
  });

  it('shows a record it creates by the new definition', async () => {
    const { path } = await cachedThenChangedAgain('memos_insert');
    const created = await tenant.owner.post(path, { text: 'after' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toEqual({ id: expect.any(String), text: 'after', mood: null });
  });
});
