import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteSchemaName } from '../../shared/data/schema/names';
import { createTable, dataPath, insert, tablePath, tablesPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

/** Who may use the data API (docs/data-tables.md, Permissions) and why no request reaches another site. */

let platform: TestPlatform;
let alpha: Tenant;
let beta: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  alpha = await createTenant(platform);
  beta = await createTenant(platform);
  for (const tenant of [alpha, beta])
    await createTable(tenant.owner, tenant.app.slug, 'contacts', {
      fields: [{ name: 'name', type: 'string' }],
    });
  await insert(alpha.owner, alpha.app.slug, 'contacts', { name: 'alpha secret' });
  await insert(beta.owner, beta.app.slug, 'contacts', { name: 'beta contact' });
});
afterAll(async () => {
  await platform.stop();
});

describe('site isolation', () => {
  it('keeps each site in its own PostgreSQL schema', async () => {
    const sql = platform.deps.sql();
    const schemas =
      await sql`SELECT schema_name FROM platform.data_site_schemas WHERE site IN ${sql([alpha.site.slug, beta.site.slug])} ORDER BY schema_name`;
    expect(schemas.map((row) => row.schema_name).sort()).toEqual(
      [siteSchemaName(alpha.site.slug), siteSchemaName(beta.site.slug)].sort(),
    );
  });

  it('shows each site only its own records under the same table name', async () => {
    const a = await alpha.owner.get(dataPath(alpha.app.slug, 'contacts'));
    const b = await beta.owner.get(dataPath(beta.app.slug, 'contacts'));
    expect(a.body.data.map((row: { name: string }) => row.name)).toEqual(['alpha secret']);
    expect(b.body.data.map((row: { name: string }) => row.name)).toEqual(['beta contact']);
  });

  it("returns 404 for another site's app named from one's own site", async () => {
    const response = await beta.owner.get(dataPath(alpha.app.slug, 'contacts'));
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('App not found');
  });

  it("returns 404 for another site's record id in one's own table", async () => {
    const [secret] = (await alpha.owner.get(dataPath(alpha.app.slug, 'contacts'))).body.data;
    const read = await beta.owner.get(`${dataPath(beta.app.slug, 'contacts')}${secret.id}/`);
    const remove = await beta.owner.delete(`${dataPath(beta.app.slug, 'contacts')}${secret.id}/`);
    expect(read.status).toBe(404);
    expect(remove.status).toBe(404);
    expect((await alpha.owner.get(`${dataPath(alpha.app.slug, 'contacts')}${secret.id}/`)).status).toBe(200);
  });

  it('returns 403 for a user who names a site they hold nothing on', async () => {
    const response = await beta.owner.forSite(alpha.site.slug).get(dataPath(alpha.app.slug, 'contacts'));
    expect(response.status).toBe(403);
  });

  it('keeps the tables of two apps of one site apart', async () => {
    const other = await alpha.owner.post('/api/apps/', { name: 'Second App' });
    await createTable(alpha.owner, other.body.slug, 'contacts', {
      fields: [{ name: 'name', type: 'string' }],
    });
    const response = await alpha.owner.get(dataPath(other.body.slug, 'contacts'));
    expect(response.body.total).toBe(0);
  });

  it('refuses a foreign key to a table of another app', async () => {
    const other = await alpha.owner.post('/api/apps/', { name: 'Third App' });
    const response = await alpha.owner.post(tablesPath(other.body.slug), {
      name: 'links',
      schema: {
        fields: [{ name: 'contact_id', type: 'string', format: 'uuid' }],
        foreignKeys: [{ fields: 'contact_id', reference: { resource: 'contacts', fields: 'id' } }],
      },
    });
    expect(response.status).toBe(400);
  });
});

describe('permissions', () => {
  async function userWith(permissions: string[]) {
    const { user, api } = await createUser(platform, {}, alpha.site.slug);
    await grantSite(alpha, user.id, permissions);
    return api;
  }
  const contacts = () => dataPath(alpha.app.slug, 'contacts');

  it('lets view_site read tables and records, and nothing more', async () => {
    const api = await userWith(['view_site']);
    expect((await api.get(tablesPath(alpha.app.slug))).status).toBe(200);
    expect((await api.get(tablePath(alpha.app.slug, 'contacts'))).status).toBe(200);
    const list = await api.get(contacts());
    expect(list.status).toBe(200);
    const id = list.body.data[0].id;
    expect((await api.get(`${contacts()}${id}/`)).status).toBe(200);
    expect((await api.post(contacts(), { name: 'x' })).status).toBe(403);
    expect((await api.patch(`${contacts()}${id}/`, { name: 'x' })).status).toBe(403);
    expect((await api.delete(`${contacts()}${id}/`)).status).toBe(403);
    expect(
      (
        await api.post(tablesPath(alpha.app.slug), {
          name: 'mine',
          schema: { fields: [{ name: 'a', type: 'string' }] },
        })
      ).status,
    ).toBe(403);
  });

  it('lets change_site create and update records but not delete them', async () => {
    const api = await userWith(['change_site']);
    const created = await api.post(contacts(), { name: 'by editor' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await api.patch(`${contacts()}${id}/`, { name: 'edited' })).status).toBe(200);
    expect((await api.post(`${contacts()}upsert/?unique_fields=id`, { id, name: 'upserted' })).status).toBe(
      200,
    );
    expect((await api.delete(`${contacts()}${id}/`)).status).toBe(403);
    expect((await api.delete(`${contacts()}?ids=${id}`)).status).toBe(403);
  });

  it('lets delete_site delete records but not create them', async () => {
    const record = await insert(alpha.owner, alpha.app.slug, 'contacts', { name: 'to delete' });
    const api = await userWith(['delete_site']);
    expect((await api.post(contacts(), { name: 'x' })).status).toBe(403);
    expect((await api.delete(`${contacts()}${record.id}/`)).status).toBe(204);
  });

  it('lets manage_site create, evolve and drop tables', async () => {
    const api = await userWith(['manage_site']);
    const created = await api.post(tablesPath(alpha.app.slug), {
      name: 'managed',
      schema: { fields: [{ name: 'a', type: 'string' }] },
    });
    expect(created.status).toBe(201);
    expect(
      (await api.post(`${tablePath(alpha.app.slug, 'managed')}fields/`, { name: 'b', type: 'integer' }))
        .status,
    ).toBe(201);
    expect((await api.delete(tablePath(alpha.app.slug, 'managed'))).status).toBe(204);
  });

  it('refuses schema changes to change_site', async () => {
    const api = await userWith(['change_site', 'delete_site']);
    expect(
      (await api.post(`${tablePath(alpha.app.slug, 'contacts')}fields/`, { name: 'b', type: 'integer' }))
        .status,
    ).toBe(403);
    expect((await api.delete(tablePath(alpha.app.slug, 'contacts'))).status).toBe(403);
  });

  it('refuses everything to access_site alone', async () => {
    const api = await userWith(['access_site']);
    expect((await api.get(contacts())).status).toBe(403);
    expect((await api.get(tablesPath(alpha.app.slug))).status).toBe(403);
  });

  it('lets admin_site do everything', async () => {
    const api = await userWith(['admin_site']);
    const created = await api.post(tablesPath(alpha.app.slug), {
      name: 'admined',
      schema: { fields: [{ name: 'a', type: 'string' }] },
    });
    expect(created.status).toBe(201);
    const record = await api.post(dataPath(alpha.app.slug, 'admined'), { a: 'x' });
    expect((await api.delete(`${dataPath(alpha.app.slug, 'admined')}${record.body.data.id}/`)).status).toBe(
      204,
    );
  });

  it('returns the data envelope for a refusal', async () => {
    const api = await userWith(['view_site']);
    const response = await api.post(contacts(), { name: 'x' });
    expect(response.body).toEqual({
      error: 'Permission denied',
      detail: 'You do not have permission to perform this action.',
    });
  });
});
