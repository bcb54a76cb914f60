import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildDeps } from '../../shared/compose/build-deps';
import { loadConfig } from '../../shared/config';
import { siteSchemaName } from '../../shared/data/schema/names';
import { startEmbeddedPostgres } from '../../shared/host/local/embedded-postgres';
import { deletionKeys } from '../../shared/lifecycle/keys';
import { roleKeys } from '../../shared/roles/keys';
import { secretKeys } from '../../shared/secrets/keys';
import type { Store } from '../../shared/store/store';
import { ApiClient } from '../support/client';
import { createTable, insert } from '../support/data';
import { startLocalServer } from '../support/local-process';
import { databaseEnv, privateDatabase } from '../support/platform';

/**
 * Deletions killed (kill -9) with its cleanup half done, and the restart that finishes it: `npm start`
 * (bin/local.ts) as a real process. DELETION_STEPS_PER_REQUEST=1 makes the deletion stop after its first step (one
 * data table dropped), answer 202 and leave the rest in the tombstone: the state a process killed at that point
 * leaves, reached without any timing. The process is then killed; the next start finishes the work.
 */

const password = 'Granite-Owl-Parade-61';
const dirs: string[] = [];
const databases: { drop: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

const startServer = (env: Record<string, string>) => startLocalServer({ ADMIN_PASSWORD: password, ...env });

/** The rows `query` returns from the data directory's PostgreSQL (the shared one, or the directory's PGlite). */
async function pgRows(dataDir: string, databaseUrl: string | undefined, query: string): Promise<unknown[]> {
  if (databaseUrl) {
    const sql = postgres(databaseUrl, { max: 1, prepare: false });
    try {
      return [...(await sql.unsafe(query))];
    } finally {
      await sql.end();
    }
  }
  const pg = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pglite') });
  try {
    return (await pg.db.query(query)).rows;
  } finally {
    await pg.stop();
  }
}

async function items(store: Store, pk: string, prefix = ''): Promise<Record<string, unknown>[]> {
  const result = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

function crashEnv(dataDir: string): Record<string, string> {
  const databaseUrl = inject('databaseUrl');
  return {
    DATA_DIR: dataDir,
    TABLE_NAME: `deletion-${randomBytes(6).toString('hex')}`,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    ...databaseEnv(databaseUrl),
  };
}

describe('an app deletion killed half-way', () => {
  it('leaves its tombstone; the next start finishes the cleanup in both stores', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deletion-crash-'));
    dirs.push(dataDir);
    // A database of this file's own on a shared PostgreSQL: the site's name is fixed, and another run (or file) on
    // the same server must not find its tables.
    const shared = inject('databaseUrl');
    const database = shared ? await privateDatabase(shared) : undefined;
    if (database) databases.push(database);
    const databaseUrl = database?.url;
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      TABLE_NAME: `deletion-${randomBytes(6).toString('hex')}`,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      ...databaseEnv(databaseUrl),
    };
    const store = buildDeps(loadConfig(env)).store;

    const first = startServer({ ...env, DELETION_STEPS_PER_REQUEST: '1', DELETIONS_IN_BACKGROUND: 'false' });
    let site = '';
    let app = { id: 0, slug: '' };
    try {
      const admin = await new ApiClient(await first.listening).login('admin', password);
      const org = await admin.post('/api/cloud/organizations/', { name: 'Crash Org' });
      expect(org.status).toBe(201);
      const made = await admin.post(`/api/cloud/organizations/${org.body.slug}/sites/`, {
        name: 'Crash Site',
      });
      expect(made.status).toBe(201);
      site = made.body.slug;
      const owner = admin.forSite(site);
      app = (await owner.post('/api/apps/', { name: 'Doomed' })).body;
      for (const table of ['notes', 'tags', 'links']) {
        await createTable(owner, app.slug, table, { fields: [{ name: 'text', type: 'string' }] });
        await insert(owner, app.slug, table, { text: `a row of ${table}` });
      }
      const deleted = await owner.delete(`/api/apps/${app.slug}/`);
      expect(deleted.status).toBe(202);
      expect((await owner.get(`/api/apps/${app.slug}/`)).status).toBe(404);
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
    } finally {
      first.child.kill('SIGKILL');
    }
    // Killed in the middle: the tombstone still owes the work.
    const tombstone = await store.doc.send(
      new GetCommand({ TableName: store.table, Key: deletionKeys.app(site, app.id), ConsistentRead: true }),
    );
    expect(tombstone.Item).toMatchObject({ kind: 'app', app_id: app.id, app_slug: app.slug });

    const second = startServer(env);
    try {
      const admin = await new ApiClient(await second.listening).login('admin', password);
      expect(second.stderr()).toMatch(/finishing pending deletions… done/);
      const after = await store.doc.send(
        new GetCommand({ TableName: store.table, Key: deletionKeys.app(site, app.id), ConsistentRead: true }),
      );
      expect(after.Item).toBeUndefined();
      // The slug is free, and the new app holds nothing of the old one.
      const again = await admin.forSite(site).post('/api/apps/', { name: 'Doomed' });
      expect(again.status).toBe(201);
      expect(again.body.slug).toBe(app.slug);
      expect((await admin.forSite(site).get(`/api/apps/${app.slug}/datatables/`)).body.data).toEqual([]);
      second.child.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    } finally {
      second.child.kill('SIGKILL');
    }

    // PostgreSQL: no table and no catalog row of the old app is left.
    const schema = siteSchemaName(site);
    const tablesQuery = `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}'
      AND table_name LIKE 'a${app.id}\\_%'`;
    const catalogQuery = `SELECT id FROM "${schema}".catalog WHERE app_id = ${app.id}`;
    if (databaseUrl) {
      const sql = postgres(databaseUrl, { max: 1, prepare: false });
      try {
        expect(await sql.unsafe(tablesQuery)).toHaveLength(0);
        expect(await sql.unsafe(catalogQuery)).toHaveLength(0);
      } finally {
        await sql.end();
      }
    } else {
      const pg = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pglite') });
      try {
        expect((await pg.db.query(tablesQuery)).rows).toHaveLength(0);
        expect((await pg.db.query(catalogQuery)).rows).toHaveLength(0);
      } finally {
        await pg.stop();
      }
    }
  }, 240_000);
});

describe('site, organization and user deletions killed half-way', () => {
  it('leave their tombstones; the next start finishes every cleanup in both stores', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deletion-crash-'));
    dirs.push(dataDir);
    const databaseUrl = inject('databaseUrl');
    const env = crashEnv(dataDir);
    const store = buildDeps(loadConfig(env)).store;

    const first = startServer({ ...env, DELETION_STEPS_PER_REQUEST: '1', DELETIONS_IN_BACKGROUND: 'false' });
    const made = { site: '', siteOrg: '', org: '', orgSite: '', user: { id: 0, username: '' } };
    try {
      const admin = await new ApiClient(await first.listening).login('admin', password);
      /** An organization with a site holding an app with two tables of rows, a secret and a role. */
      const tenant = async (name: string) => {
        const org = (await admin.post('/api/cloud/organizations/', { name: `${name} Org` })).body
          .slug as string;
        const created = await admin.post(`/api/cloud/organizations/${org}/sites/`, { name: `${name} Site` });
        expect(created.status).toBe(201);
        const site = created.body.slug as string;
        const owner = admin.forSite(site);
        const app = (await owner.post('/api/apps/', { name: 'Doomed' })).body;
        for (const table of ['notes', 'tags']) {
          await createTable(owner, app.slug, table, { fields: [{ name: 'text', type: 'string' }] });
          await insert(owner, app.slug, table, { text: `a row of ${table}` });
        }
        await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
        expect(
          (await owner.post('/api/secrets/', { secret_type: 'token', key: 'k', value: { v: 1 } })).status,
        ).toBe(201);
        expect((await owner.post('/api/roles/', { name: 'Readers' })).status).toBe(201);
        return { org, site, owner };
      };
      const a = await tenant('Site Crash');
      made.site = a.site;
      made.siteOrg = a.org;
      const b = await tenant('Org Crash');
      made.org = b.org;
      made.orgSite = b.site;
      // A user with an organization membership, a site permission and a role.
      const user = await admin.post('/api/cloud/users/', {
        username: 'leaving',
        email: 'leaving@example.com',
        password: 'Velvet-Harbor-Quill-42',
      });
      expect(user.status).toBe(201);
      made.user = { id: user.body.id, username: user.body.username };
      expect(
        (await admin.post(`/api/cloud/organizations/${a.org}/members/`, { user_id: made.user.id })).status,
      ).toBe(200);
      expect(
        (
          await admin.put(`/api/cloud/organizations/${a.org}/sites/${a.site}/permissions/${made.user.id}/`, {
            permissions: ['access_site', 'view_site'],
          })
        ).status,
      ).toBe(200);
      expect((await a.owner.post('/api/roles/readers/users', { usernames: ['leaving'] })).status).toBe(200);

      const leaving = await new ApiClient(await first.listening).login('leaving', 'Velvet-Harbor-Quill-42');
      expect(
        (await admin.delete(`/api/cloud/organizations/${b.org}/?confirm=${b.org}`)).status,
        'organization',
      ).toBe(202);
      expect((await leaving.delete(`/api/cloud/users/${made.user.id}/?confirm=leaving`)).status, 'user').toBe(
        202,
      );
      expect(
        (await admin.delete(`/api/cloud/organizations/${a.org}/sites/${a.site}/?confirm=${a.site}`)).status,
        'site',
      ).toBe(202);
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
    } finally {
      first.child.kill('SIGKILL');
    }
    // Killed in the middle: each tombstone still owes its work.
    const kinds = (await items(store, deletionKeys.partition)).map((tomb) => tomb.kind).sort();
    expect(kinds).toEqual(['organization', 'site', 'site', 'user']);

    const second = startServer(env);
    try {
      await new ApiClient(await second.listening).login('admin', password);
      expect(second.stderr()).toMatch(/finishing pending deletions… done/);
      second.child.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    } finally {
      second.child.kill('SIGKILL');
    }

    // DynamoDB: no tombstone, and nothing of the site, the organization (with its site) or the user is left.
    expect(await items(store, deletionKeys.partition)).toEqual([]);
    for (const site of [made.site, made.orgSite]) {
      expect(await items(store, `SITE#${site}`), site).toEqual([]);
      expect(await items(store, roleKeys.catalog(site)), site).toEqual([]);
      expect(await items(store, secretKeys.secrets(site)), site).toEqual([]);
    }
    expect(await items(store, `ORG#${made.org}`)).toEqual([]);
    expect(await items(store, `USER#${made.user.id}`)).toEqual([]);
    // The user's membership in the surviving organization is gone, its owner's is not.
    const members = await items(store, `ORG#${made.siteOrg}`, 'MEMBER#');
    expect(members.map((member) => member.user_id)).not.toContain(made.user.id);
    expect(members).toHaveLength(1);
    // PostgreSQL: neither site's schema is left.
    const schemas = [made.site, made.orgSite].map((site) => `'${siteSchemaName(site)}'`).join(', ');
    expect(
      await pgRows(
        dataDir,
        databaseUrl,
        `SELECT schema_name FROM information_schema.schemata WHERE schema_name IN (${schemas})`,
      ),
    ).toEqual([]);
  }, 240_000);
});
