import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BackgroundDeletions,
  retryAfterFailureMs,
  type Schedule,
} from '../../shared/adapters/local/background-deletions';
import { siteSchemaName } from '../../shared/data/schema/names';
import { deletionKeys } from '../../shared/lifecycle/keys';
import type { Sql } from '../../shared/sql/client';
import { createTable, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant } from '../support/tenant';

/**
 * The local sweep tries a failed background deletion again by itself, `retryAfterFailureMs` later
 * (shared/adapters/local/background-deletions.ts). The platform here runs no background sweep of its own
 * (DELETIONS_IN_BACKGROUND=false); the test runs one whose timer it holds: the retry it schedules is run at once
 * instead of 30 s later, so nothing here waits on time.
 */

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ DELETION_STEPS_PER_REQUEST: '1', DELETIONS_IN_BACKGROUND: 'false' });
});
afterAll(async () => {
  await platform.stop();
});

/** A schedule that only records what it is asked to run, and when. */
function heldTimers() {
  const timers: { run: () => void; delayMs: number; cancelled: boolean }[] = [];
  const schedule: Schedule = (run, delayMs) => {
    const timer = { run, delayMs, cancelled: false };
    timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  return { timers, schedule };
}

describe('the local background sweep after a failed cleanup', () => {
  it('tries again retryAfterFailureMs later, and the deletion then finishes', async () => {
    const tenant = await createTenant(platform);
    const { app } = tenant;
    for (const table of ['notes', 'tags']) {
      await createTable(tenant.owner, app.slug, table, { fields: [{ name: 'text', type: 'string' }] });
      await insert(tenant.owner, app.slug, table, { text: `a row of ${table}` });
    }
    expect((await tenant.owner.delete(`/api/apps/${app.slug}/`)).status).toBe(202);
    const key = deletionKeys.app(tenant.site.slug, app.id);
    const { store } = platform.deps;
    const tombstone = async () =>
      (await store.doc.send(new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true }))).Item;
    expect(await tombstone()).toBeDefined();

    // The database is unreachable for the first sweep, and back by the time the retry runs.
    let reachable = false;
    const sql = (): Sql => {
      if (!reachable) throw new Error('database unreachable');
      return platform.deps.sql();
    };
    const { timers, schedule } = heldTimers();
    const background = new BackgroundDeletions({ ...platform.deps, sql }, schedule);
    try {
      await background.handOff();
      await background.idle();
      // The first sweep failed: the deletion is still owed and one retry is set, 30 s later.
      expect(await tombstone()).toBeDefined();
      expect(timers.map(({ delayMs, cancelled }) => ({ delayMs, cancelled }))).toEqual([
        { delayMs: retryAfterFailureMs, cancelled: false },
      ]);
      expect(retryAfterFailureMs).toBe(30_000);

      reachable = true;
      timers[0]?.run();
      await background.idle();
      expect(await tombstone()).toBeUndefined();
      const db = platform.deps.sql();
      const schema = siteSchemaName(tenant.site.slug);
      expect(await db`SELECT 1 FROM ${db(schema)}.catalog WHERE app_id = ${app.id}`).toHaveLength(0);
      // Finished: no further retry is set.
      expect(timers).toHaveLength(1);
    } finally {
      await background.stop();
    }
  });

  it('a stop cancels the retry that is set', async () => {
    const tenant = await createTenant(platform);
    await createTable(tenant.owner, tenant.app.slug, 'notes', { fields: [{ name: 'text', type: 'string' }] });
    expect((await tenant.owner.delete(`/api/apps/${tenant.app.slug}/`)).status).toBe(202);
    const { timers, schedule } = heldTimers();
    const sql = (): Sql => {
      throw new Error('database unreachable');
    };
    const background = new BackgroundDeletions({ ...platform.deps, sql }, schedule);
    await background.handOff();
    await background.idle();
    expect(timers).toHaveLength(1);
    await background.stop();
    expect(timers[0]?.cancelled).toBe(true);
  });
});
