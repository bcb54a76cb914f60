import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let app: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'docs', {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'updated_at', type: 'datetime' },
      { name: 'is_deleted', type: 'boolean' },
    ],
  });
  await createTable(tenant.owner, app, 'plain', { fields: [{ name: 'title', type: 'string' }] });
});
afterAll(async () => {
  await platform.stop();
});

const docs = () => dataPath(app, 'docs');

describe('soft delete (tables with is_deleted)', () => {
  it('marks the record deleted: 204, then hidden from reads', async () => {
    const doc = await insert(tenant.owner, app, 'docs', { title: 'Soft' });
    expect(doc.is_deleted).toBe(false);
    const response = await tenant.owner.delete(`${docs()}${doc.id}/`);
    expect(response.status).toBe(204);
    expect((await tenant.owner.get(`${docs()}${doc.id}/`)).status).toBe(404);
    const list = await tenant.owner.get(docs());
    expect(list.body.data.map((item: { id: string }) => item.id)).not.toContain(doc.id);
  });

  it('shows soft-deleted records with include_deleted=true', async () => {
    const doc = await insert(tenant.owner, app, 'docs', { title: 'Visible again' });
    await tenant.owner.delete(`${docs()}${doc.id}/`);
    const one = await tenant.owner.get(`${docs()}${doc.id}/?include_deleted=true`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: doc.id, is_deleted: true });
    const list = await tenant.owner.get(`${docs()}?include_deleted=true`);
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(doc.id);
  });

  it('shows only soft-deleted records with only_deleted=true', async () => {
    const live = await insert(tenant.owner, app, 'docs', { title: 'Live' });
    const list = await tenant.owner.get(`${docs()}?only_deleted=true`);
    expect(list.body.total).toBeGreaterThan(0);
    expect(list.body.data.every((item: { is_deleted: boolean }) => item.is_deleted)).toBe(true);
    expect(list.body.data.map((item: { id: string }) => item.id)).not.toContain(live.id);
  });

  it('returns 404 when soft-deleting a record that is already soft-deleted', async () => {
    const doc = await insert(tenant.owner, app, 'docs', { title: 'Twice' });
    await tenant.owner.delete(`${docs()}${doc.id}/`);
    const response = await tenant.owner.delete(`${docs()}${doc.id}/`);
    expect(response.status).toBe(404);
  });

  it('removes a live record for good with hard_delete=true', async () => {
    const doc = await insert(tenant.owner, app, 'docs', { title: 'Hard' });
    const response = await tenant.owner.delete(`${docs()}${doc.id}/?hard_delete=true`);
    expect(response.status).toBe(204);
    expect((await tenant.owner.get(`${docs()}${doc.id}/?include_deleted=true`)).status).toBe(404);
  });

  it('removes a soft-deleted record for good with hard_delete=true', async () => {
    const doc = await insert(tenant.owner, app, 'docs', { title: 'Soft then hard' });
    await tenant.owner.delete(`${docs()}${doc.id}/`);
    const response = await tenant.owner.delete(`${docs()}${doc.id}/?hard_delete=true`);
    expect(response.status).toBe(204);
    expect((await tenant.owner.get(`${docs()}${doc.id}/?include_deleted=true`)).status).toBe(404);
  });

  it('restores a soft-deleted record with PATCH is_deleted=false and include_deleted=true', async () => {
    const doc = await insert(tenant.owner, app, 'docs', { title: 'Restore me' });
    await tenant.owner.delete(`${docs()}${doc.id}/`);
    expect((await tenant.owner.patch(`${docs()}${doc.id}/`, { is_deleted: false })).status).toBe(404);
    const response = await tenant.owner.patch(`${docs()}${doc.id}/?include_deleted=true`, {
      is_deleted: false,
    });
    expect(response.status).toBe(200);
    expect(response.body.data.is_deleted).toBe(false);
    expect((await tenant.owner.get(`${docs()}${doc.id}/`)).status).toBe(200);
  });

  it('soft-deletes the records of ids, skipping those already soft-deleted', async () => {
    const [a, b] = await insert(tenant.owner, app, 'docs', [{ title: 'Ids A' }, { title: 'Ids B' }]);
    await tenant.owner.delete(`${docs()}${b.id}/`);
    const response = await tenant.owner.delete(`${docs()}?ids=${a.id},${b.id}`);
    expect(response.body).toEqual({ deleted: 1, ids: [a.id] });
    const gone = await tenant.owner.get(`${docs()}${a.id}/?include_deleted=true`);
    expect(gone.body.data.is_deleted).toBe(true);
  });

  it('hard-deletes the records of ids, soft-deleted ones included, with hard_delete=true', async () => {
    const [a, b] = await insert(tenant.owner, app, 'docs', [{ title: 'Hard A' }, { title: 'Hard B' }]);
    await tenant.owner.delete(`${docs()}${b.id}/`);
    const response = await tenant.owner.delete(`${docs()}?ids=${a.id},${b.id}&hard_delete=true`);
    expect(response.body.deleted).toBe(2);
    expect((await tenant.owner.get(`${docs()}${b.id}/?include_deleted=true`)).status).toBe(404);
  });

  it('soft-deletes the records a filter matches', async () => {
    await insert(tenant.owner, app, 'docs', [{ title: 'Filtered' }, { title: 'Filtered' }]);
    const filter = encodeURIComponent(JSON.stringify({ title: 'Filtered' }));
    const response = await tenant.owner.delete(`${docs()}?filter=${filter}`);
    expect(response.body).toEqual({ deleted: 2 });
    const deleted = await tenant.owner.get(`${docs()}?title=Filtered&only_deleted=true`);
    expect(deleted.body.total).toBe(2);
  });
});

describe('delete on tables without is_deleted', () => {
  it('removes the record for good', async () => {
    const item = await insert(tenant.owner, app, 'plain', { title: 'Plain' });
    expect((await tenant.owner.delete(`${dataPath(app, 'plain')}${item.id}/`)).status).toBe(204);
    expect((await tenant.owner.get(`${dataPath(app, 'plain')}${item.id}/?include_deleted=true`)).status).toBe(
      404,
    );
  });

  it('returns nothing for only_deleted', async () => {
    await insert(tenant.owner, app, 'plain', { title: 'Still here' });
    const response = await tenant.owner.get(`${dataPath(app, 'plain')}?only_deleted=true`);
    expect(response.body).toMatchObject({ data: [], total: 0 });
  });
});

describe('foreign key delete rules', () => {
  const fallback = '11111111-1111-4111-8111-111111111111';

  /** A parent table and a child table whose parent_id follows `rule`; returns a parent and two children. */
  async function family(name: string, rule: string | undefined, extra: Record<string, unknown> = {}) {
    const parents = `${name}_parents`;
    const children = `${name}_children`;
    await createTable(tenant.owner, app, parents, { fields: [{ name: 'name', type: 'string' }] });
    await createTable(tenant.owner, app, children, {
      fields: [
        { name: 'name', type: 'string' },
        { name: 'parent_id', type: 'string', format: 'uuid', ...extra },
      ],
      foreignKeys: [
        {
          fields: 'parent_id',
          reference: { resource: parents, fields: 'id' },
          ...(rule ? { 'x-actions': { onDelete: rule } } : {}),
        },
      ],
    });
    const parent = await insert(tenant.owner, app, parents, { name: 'parent' });
    const kids = await insert(tenant.owner, app, children, [
      { name: 'one', parent_id: parent.id },
      { name: 'two', parent_id: parent.id },
    ]);
    return { parent, kids, parentsPath: dataPath(app, parents), childrenPath: dataPath(app, children) };
  }

  it('CASCADE deletes the related records', async () => {
    const { parent, kids, parentsPath, childrenPath } = await family('cascade', 'CASCADE');
    expect((await tenant.owner.delete(`${parentsPath}${parent.id}/`)).status).toBe(204);
    for (const kid of kids) expect((await tenant.owner.get(`${childrenPath}${kid.id}/`)).status).toBe(404);
  });

  it('SET NULL sets the keys of the related records to null', async () => {
    const { parent, kids, parentsPath, childrenPath } = await family('setnull', 'SET NULL');
    expect((await tenant.owner.delete(`${parentsPath}${parent.id}/`)).status).toBe(204);
    for (const kid of kids) {
      const response = await tenant.owner.get(`${childrenPath}${kid.id}/`);
      expect(response.body.data).toMatchObject({ name: kid.name, parent_id: null });
    }
  });

  it('SET DEFAULT sets the keys of the related records to the field default', async () => {
    await createTable(tenant.owner, app, 'setdefault_parents', {
      fields: [{ name: 'name', type: 'string' }],
    });
    await insert(tenant.owner, app, 'setdefault_parents', { id: fallback, name: 'fallback' });
    await createTable(tenant.owner, app, 'setdefault_children', {
      fields: [
        { name: 'name', type: 'string' },
        {
          name: 'parent_id',
          type: 'string',
          format: 'uuid',
          constraints: { required: true },
          default: fallback,
        },
      ],
      foreignKeys: [
        {
          fields: 'parent_id',
          reference: { resource: 'setdefault_parents', fields: 'id' },
          'x-actions': { onDelete: 'SET DEFAULT' },
        },
      ],
    });
    const parent = await insert(tenant.owner, app, 'setdefault_parents', { name: 'parent' });
    const kid = await insert(tenant.owner, app, 'setdefault_children', { name: 'kid', parent_id: parent.id });
    expect((await tenant.owner.delete(`${dataPath(app, 'setdefault_parents')}${parent.id}/`)).status).toBe(
      204,
    );
    const response = await tenant.owner.get(`${dataPath(app, 'setdefault_children')}${kid.id}/`);
    expect(response.body.data.parent_id).toBe(fallback);
  });

  it('SET DEFAULT returns 400 when the default names no record (deleting the fallback itself)', async () => {
    const response = await tenant.owner.delete(`${dataPath(app, 'setdefault_parents')}${fallback}/`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Foreign key violation',
      detail:
        'Deleting this record sets setdefault_children.parent_id to its default, and no "setdefault_parents" record has that value.',
      field: 'parent_id',
    });
    expect((await tenant.owner.get(`${dataPath(app, 'setdefault_parents')}${fallback}/`)).status).toBe(200);
  });

  it('RESTRICT refuses the delete while related records exist: 403 Cannot delete record', async () => {
    const { parent, parentsPath, childrenPath, kids } = await family('restrict', 'RESTRICT');
    const response = await tenant.owner.delete(`${parentsPath}${parent.id}/`);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: 'Cannot delete record',
      detail:
        'Records of table "restrict_children" still reference this record through parent_id (ON DELETE RESTRICT).',
    });
    expect((await tenant.owner.get(`${parentsPath}${parent.id}/`)).status).toBe(200);
    for (const kid of kids) await tenant.owner.delete(`${childrenPath}${kid.id}/`);
    expect((await tenant.owner.delete(`${parentsPath}${parent.id}/`)).status).toBe(204);
  });

  it('treats an omitted onDelete as RESTRICT', async () => {
    const { parent, parentsPath } = await family('omitted', undefined);
    const response = await tenant.owner.delete(`${parentsPath}${parent.id}/`);
    expect(response.status).toBe(403);
    expect(response.body.detail).toMatch(/ON DELETE RESTRICT/);
  });

  it('NO ACTION refuses the delete while related records exist', async () => {
    const { parent, parentsPath } = await family('noaction', 'NO ACTION');
    const response = await tenant.owner.delete(`${parentsPath}${parent.id}/`);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: 'Cannot delete record',
      detail:
        'Records of table "noaction_children" still reference this record through parent_id (ON DELETE NO ACTION).',
    });
  });

  it('refuses a delete by ids as a whole when one record is restricted', async () => {
    const { parent, parentsPath } = await family('bulkrestrict', 'RESTRICT');
    const free = await insert(tenant.owner, app, 'bulkrestrict_parents', { name: 'free' });
    const response = await tenant.owner.delete(`${parentsPath}?ids=${free.id},${parent.id}`);
    expect(response.status).toBe(403);
    expect((await tenant.owner.get(`${parentsPath}${free.id}/`)).status).toBe(200);
  });

  it('does not apply delete rules to a soft delete', async () => {
    await createTable(tenant.owner, app, 'soft_parents', {
      fields: [
        { name: 'name', type: 'string' },
        { name: 'is_deleted', type: 'boolean' },
      ],
    });
    await createTable(tenant.owner, app, 'soft_children', {
      fields: [{ name: 'parent_id', type: 'string', format: 'uuid' }],
      foreignKeys: [
        {
          fields: 'parent_id',
          reference: { resource: 'soft_parents', fields: 'id' },
          'x-actions': { onDelete: 'CASCADE' },
        },
      ],
    });
    const parent = await insert(tenant.owner, app, 'soft_parents', { name: 'p' });
    const kid = await insert(tenant.owner, app, 'soft_children', { parent_id: parent.id });
    expect((await tenant.owner.delete(`${dataPath(app, 'soft_parents')}${parent.id}/`)).status).toBe(204);
    expect((await tenant.owner.get(`${dataPath(app, 'soft_children')}${kid.id}/`)).body.data.parent_id).toBe(
      parent.id,
    );
    expect(
      (await tenant.owner.delete(`${dataPath(app, 'soft_parents')}${parent.id}/?hard_delete=true`)).status,
    ).toBe(204);
    expect((await tenant.owner.get(`${dataPath(app, 'soft_children')}${kid.id}/`)).status).toBe(404);
  });

  it('cascades through a self-reference', async () => {
    await createTable(tenant.owner, app, 'nodes', {
      fields: [
        { name: 'name', type: 'string' },
        { name: 'parent_id', type: 'string', format: 'uuid' },
      ],
      foreignKeys: [
        {
          fields: 'parent_id',
          reference: { resource: '', fields: 'id' },
          'x-actions': { onDelete: 'CASCADE' },
        },
      ],
    });
    const root = '22222222-2222-4222-8222-222222222222';
    const [, child] = await insert(tenant.owner, app, 'nodes', [
      { id: root, name: 'root' },
      { name: 'child', parent_id: root },
    ]);
    expect((await tenant.owner.delete(`${dataPath(app, 'nodes')}${root}/`)).status).toBe(204);
    expect((await tenant.owner.get(`${dataPath(app, 'nodes')}${child.id}/`)).status).toBe(404);
  });
});
