import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../functions/groups';
import type { DepsOverrides } from '../../shared/compose/compose';
import { isPermission, isSitePermission } from '../../shared/policy/permissions';
import type { ApiClient } from '../support/client';
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
      expect(route.summary, route.operationId).not.toMatch(/\((\w+_site|superusers|owners)\b[^:]*\)$/);
  });
});

interface Fixture {
  platform: TestPlatform;
  tenant: Tenant;
  reader: ApiClient;
  recordPath: string;
}

/** A tenant with one record and a reader holding `view_site`. */
async function fixture(env: Record<string, string>, overrides: DepsOverrides = {}): Promise<Fixture> {
  const platform = await startTestPlatform(env, overrides);
  const tenant = await createTenant(platform);
  await createTable(tenant.owner, tenant.app.slug, 'notes', { fields: [{ name: 'text', type: 'string' }] });
  const record = await insert(tenant.owner, tenant.app.slug, 'notes', { text: 'hello' });
  const viewer = await createUser(platform, {}, tenant.site.slug);
  await grantSite(tenant, viewer.user.id, ['view_site']);
  return {
    platform,
    tenant,
    reader: viewer.api,
    recordPath: `${dataPath(tenant.app.slug, 'notes')}${record.id}/`,
  };
}

/** The DynamoDB commands sent while `request` runs (the store's client is shared by every group). */
async function commandsDuring(platform: TestPlatform, request: () => Promise<{ status: number }>) {
  const send = vi.spyOn(platform.deps.store.doc, 'send');
  try {
    const response = await request();
    expect(response.status).toBe(200);
    return send.mock.calls.map(([command]) => command.constructor.name);
  } finally {
    send.mockRestore();
  }
}

describe('DynamoDB round trips per request, with the access cache off', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture({ ACCESS_CACHE_SECONDS: '0' });
  });
  afterAll(async () => {
    await f.platform.stop();
  });

  it('reads a record with exactly one DynamoDB round trip (user, site, membership, permissions, app)', async () => {
    await f.reader.get(f.recordPath); // a container learns a site's organization once
    expect(await commandsDuring(f.platform, () => f.reader.get(f.recordPath))).toEqual(['BatchGetCommand']);
    expect(await commandsDuring(f.platform, () => f.tenant.owner.get(f.recordPath))).toEqual([
      'BatchGetCommand',
    ]);
  });

  it('reads application roles with at most two round trips', async () => {
    const commands = await commandsDuring(f.platform, () =>
      f.reader.get(`/api/app/${f.tenant.app.slug}/roles`),
    );
    expect(commands.length).toBeLessThanOrEqual(2);
    expect(commands[0]).toBe('BatchGetCommand');
  });
});

describe('the access cache', () => {
  let f: Fixture;
  let now = Date.now();
  beforeAll(async () => {
    f = await fixture({ ACCESS_CACHE_SECONDS: '3' }, { clock: () => new Date(now) });
  });
  afterAll(async () => {
    await f.platform.stop();
  });

  it('reuses who and where within its window, and reads them again after it', async () => {
    await f.reader.get(f.recordPath);
    expect(await commandsDuring(f.platform, () => f.reader.get(f.recordPath))).toEqual([]);
    now += 3_001;
    expect(await commandsDuring(f.platform, () => f.reader.get(f.recordPath))).toEqual(['BatchGetCommand']);
  });

  it('reads the user again for a token newer than the remembered user (a password changed elsewhere)', async () => {
    const viewer = await createUser(f.platform, {}, f.tenant.site.slug);
    await grantSite(f.tenant, viewer.user.id, ['view_site']);
    const path = dataPath(f.tenant.app.slug, 'notes');
    expect((await viewer.api.get(path)).status).toBe(200);
    // Another container raises the token version; this one still remembers the user as it was.
    const store = f.platform.deps.store;
    await store.doc.send(
      new UpdateCommand({
        TableName: store.table,
        Key: { PK: `USER#${viewer.user.id}`, SK: 'PROFILE' },
        UpdateExpression: 'SET token_version = :v',
        ExpressionAttributeValues: { ':v': 7 },
      }),
    );
    const fresh = await f.platform.deps.tokens.issue(
      { id: viewer.user.id, username: viewer.user.username, token_version: 7 },
      'access',
    );
    expect((await viewer.api.withToken(fresh).get(path)).status).toBe(200);
    expect((await viewer.api.get(path)).status).toBe(401);
  });

  it('sees a permission revoked through this container on the next request', async () => {
    const viewer = await createUser(f.platform, {}, f.tenant.site.slug);
    await grantSite(f.tenant, viewer.user.id, ['view_site']);
    const path = dataPath(f.tenant.app.slug, 'notes');
    expect((await viewer.api.get(path)).status).toBe(200);
    const { organization, site } = f.tenant;
    await f.tenant.owner.put(
      `/api/cloud/organizations/${organization.slug}/sites/${site.slug}/permissions/${viewer.user.id}/`,
      { permissions: ['access_site'] },
    );
    expect((await viewer.api.get(path)).status).toBe(403);
  });
});

describe('sign-in', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture({ ACCESS_CACHE_SECONDS: '0' });
  });
  afterAll(async () => {
    await f.platform.stop();
  });

  /** The DynamoDB keys `GetCommand`s read during one sign-in by `login`. */
  async function keysReadSigningIn(login: string, password: string) {
    const send = vi.spyOn(f.platform.deps.store.doc, 'send');
    try {
      const response = await f.platform.api.post('/api/auth/jwt/token/', { username: login, password });
      expect(response.status).toBe(200);
      return send.mock.calls
        .map(([command]) => command)
        .filter((command) => command.constructor.name === 'GetCommand')
        .map((command) => (command.input as { Key: { PK: string; SK: string } }).Key);
    } finally {
      send.mockRestore();
    }
  }

  it('finds the user by the login and reads the user item once, by username or by e-mail', async () => {
    const { user, password } = await createUser(f.platform);
    const profile = { PK: `USER#${user.id}`, SK: 'PROFILE' };
    for (const login of [user.username, user.email]) {
      const read = await keysReadSigningIn(login, password);
      expect(read.filter((key) => key.PK === profile.PK && key.SK === profile.SK)).toHaveLength(1);
      expect(read.filter((key) => key.SK === 'UNIQUE').length).toBe(login === user.username ? 1 : 2);
    }
  });
});
