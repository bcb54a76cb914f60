import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../shared/http/routes';
import { isPermission, isSitePermission } from '../../shared/policy/permissions';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

/** The request path's budget: who and where cost one DynamoDB round trip, and every route declares who may call it. */

describe('the route table', () => {
  it('declares a known permission on every route', () => {
    for (const route of routes) expect(isPermission(route.permission), route.operationId).toBe(true);
  });

  it('decides site permissions on site routes and organization permissions on organization paths', () => {
    for (const route of routes) {
      expect(isSitePermission(route.permission), route.operationId).toBe(route.scope === 'site');
      if (route.permission.startsWith('organization:')) expect(route.path).toContain('{org_slug}');
    }
  });

  it('keeps permissions out of the summaries (they are generated from the table)', () => {
    for (const route of routes)
      expect(route.summary, route.operationId).not.toMatch(/\((\w+_site|superusers)/);
  });
});

describe('DynamoDB round trips per request', () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let recordId: number;
  let reader: Awaited<ReturnType<typeof createUser>>['api'];

  beforeAll(async () => {
    platform = await startTestPlatform();
    tenant = await createTenant(platform);
    await createTable(tenant.owner, tenant.app.slug, 'notes', { fields: [{ name: 'text', type: 'string' }] });
    [{ id: recordId }] = [await insert(tenant.owner, tenant.app.slug, 'notes', { text: 'hello' })];
    const viewer = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, viewer.user.id, ['view_site']);
    reader = viewer.api;
  });
  afterAll(async () => {
    await platform.stop();
  });

  /** Counts the DynamoDB commands sent while `request` runs (the store's client is shared by every group). */
  async function commandsDuring(request: () => Promise<{ status: number }>): Promise<string[]> {
    const send = vi.spyOn(platform.deps.store.doc, 'send');
    try {
      const response = await request();
      expect(response.status).toBe(200);
      return send.mock.calls.map(([command]) => command.constructor.name);
    } finally {
      send.mockRestore();
    }
  }

  it('reads a record with exactly one DynamoDB round trip (user, site, membership, permissions, app)', async () => {
    const path = `${dataPath(tenant.app.slug, 'notes')}${recordId}/`;
    await reader.get(path); // a container learns a site's organization once
    expect(await commandsDuring(() => reader.get(path))).toEqual(['BatchGetCommand']);
    expect(await commandsDuring(() => tenant.owner.get(path))).toEqual(['BatchGetCommand']);
  });

  it('reads application roles with at most two round trips', async () => {
    const path = `/api/app/${tenant.app.slug}/roles`;
    const commands = await commandsDuring(() => reader.get(path));
    expect(commands.length).toBeLessThanOrEqual(2);
    expect(commands[0]).toBe('BatchGetCommand');
  });

  it('sees a revoked permission on the next request', async () => {
    const viewer = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, viewer.user.id, ['view_site']);
    const path = dataPath(tenant.app.slug, 'notes');
    expect((await viewer.api.get(path)).status).toBe(200);
    await tenant.owner.put(
      `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/permissions/${viewer.user.id}/`,
      { permissions: ['access_site'] },
    );
    expect((await viewer.api.get(path)).status).toBe(403);
  });
});
