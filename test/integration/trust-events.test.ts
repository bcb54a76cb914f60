import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../shared/accounts/model';
import { createUserCreationEvents } from '../../shared/compose/user-creation-events';
import type { Config } from '../../shared/config';
import { AppError } from '../../shared/errors';
import { createFunction } from '../../shared/events/functions';
import { eventKeys } from '../../shared/events/keys';
import type { EventName, Subscription } from '../../shared/events/model';
import { captureLog, type LogLine } from '../support/capture-log';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant, unique } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: a site's configurator registers the functions the platform sends its
 * users' personal data to, so the target rule is per site (docs/events.md, "Targets"). Locally a module must be in
 * the site's own folder of the functions directory (or shared at its top level); in the cloud a function's name must
 * start with `<prefix><site-slug>--`. Both at registration and again before every run.
 */

const functionsDir = mkdtempSync(join(tmpdir(), 'trust-events-'));
const { log, lines, until } = captureLog();
let platform: TestPlatform;
/** Site A, and site B whose slug is A's followed by "-eu" (the prefix-ambiguity case), in another organization. */
let a: Tenant;
let b: Tenant;

/** What site B's module has received: it must stay empty whatever site A does. */
const receivedByB = () => ((globalThis as { trustEventsB?: unknown[] }).trustEventsB ??= []);
const receivedByA = () => ((globalThis as { trustEventsA?: string[] }).trustEventsA ??= []);

beforeAll(async () => {
  platform = await startTestPlatform(
    { EVENT_FUNCTIONS_DIR: functionsDir, EVENT_FUNCTION_TIMEOUT_SECONDS: '5' },
    { log },
    { dataPlane: false },
  );
  a = await createTenant(platform);
  const other = await createTenant(platform);
  const site = await other.owner.post(`/api/cloud/organizations/${other.organization.slug}/sites/`, {
    name: `${a.site.slug} EU`,
  });
  expect(site.body.slug).toBe(`${a.site.slug}-eu`);
  const owner = other.owner.forSite(site.body.slug);
  const app = await owner.post('/api/apps/', { name: unique('App') });
  b = { ...other, site: site.body, app: app.body, owner };
  mkdirSync(join(functionsDir, a.site.slug));
  mkdirSync(join(functionsDir, b.site.slug));
  writeFileSync(
    join(functionsDir, b.site.slug, 'welcome.mjs'),
    'export async function handler(event) { (globalThis.trustEventsB ??= []).push(event); return {}; }\n',
  );
  writeFileSync(
    join(functionsDir, a.site.slug, 'hook.mjs'),
    'export async function handler(event) { (globalThis.trustEventsA ??= []).push(event.data.email); return {}; }\n',
  );
  writeFileSync(join(functionsDir, 'shared.mjs'), 'export async function handler() { return {}; }\n');
});
afterAll(async () => {
  await platform.stop();
  rmSync(functionsDir, { recursive: true, force: true });
});

const functionsOf = (t: Tenant) => `/api/apps/${t.app.slug}/functions/`;
const register = (t: Tenant, target: string) => t.owner.post(functionsOf(t), { name: unique('Fn'), target });

async function subscribe(t: Tenant, event: EventName, target: string): Promise<number> {
  const fn = await register(t, target);
  expect(fn.status).toBe(201);
  const sub = await t.owner.post(`/api/cloud/events/${event}/subscribe/`, { function_id: fn.body.data.id });
  expect(sub.status).toBe(200);
  return fn.body.data.id;
}

/**
 * A subscription as one registered before the per-site rule would be stored: written straight into the store,
 * since the API refuses it now.
 */
async function storedSubscription(t: Tenant, event: EventName, target: string): Promise<Subscription> {
  const id = 900_000 + Math.floor(Math.random() * 99_999);
  const now = new Date().toISOString();
  const subscription: Subscription = {
    id,
    event,
    function_id: id,
    function_name: 'Registered before the rule',
    function_slug: 'registered-before-the-rule',
    target,
    app_id: t.app.id,
    app_name: t.app.name,
    app_slug: t.app.slug,
    site: t.site.slug,
    created_at: now,
    updated_at: now,
  };
  await platform.deps.store.doc.send(
    new PutCommand({
      TableName: platform.deps.store.table,
      Item: { ...eventKeys.subscription(t.site.slug, event, id), ...subscription },
    }),
  );
  return subscription;
}

const newUser = () => {
  const username = unique('trust');
  return { email: `${username}@example.org`, username, password: 'a quiet harbour at dawn 42' };
};
const adminCreate = (t: Tenant, body: object) =>
  platform.adminApi.forSite(t.site.slug).post('/api/cloud/users/', body);

async function userExists(email: string): Promise<boolean> {
  const users = await platform.adminApi.get(`/api/cloud/users/?search=${encodeURIComponent(email)}`);
  const list = (users.body.results ?? users.body) as Array<{ email: string }>;
  return list.some((user) => user.email === email);
}

describe('cross-tenant trust suite: event function targets, local modules', () => {
  it("refuses site A a module of site B's folder, with a 400 in the events envelope naming target", async () => {
    const response = await register(a, `${b.site.slug}/welcome.mjs`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      message: `target: Must be a module of this site's folder "${a.site.slug}/" or a shared module at the top of the functions directory.`,
    });
  });

  it("refuses site B a module of site A's folder, although A's slug is a prefix of B's", async () => {
    expect((await register(b, `${a.site.slug}/hook.mjs`)).status).toBe(400);
  });

  it("refuses a module of the site's folder that is a symbolic link into another site's folder", async () => {
    const link = join(functionsDir, a.site.slug, 'borrowed.mjs');
    symlinkSync(join(functionsDir, b.site.slug, 'welcome.mjs'), link);
    const response = await register(a, `${a.site.slug}/borrowed.mjs`);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^target: /);
  });

  it("accepts the site's own folder and the shared top level", async () => {
    expect((await register(a, `${a.site.slug}/hook.mjs`)).status).toBe(201);
    expect((await register(a, 'shared.mjs')).status).toBe(201);
    expect((await register(b, `${b.site.slug}/welcome.mjs`)).status).toBe(201);
  });

  it("refuses at run time a module swapped for a link into another site's folder: PRE fails closed", async () => {
    const file = join(functionsDir, a.site.slug, 'swapped.mjs');
    writeFileSync(file, 'export async function handler() { return {}; }\n');
    const fnId = await subscribe(a, 'PRE_USER_CREATE', `${a.site.slug}/swapped.mjs`);
    unlinkSync(file);
    symlinkSync(join(functionsDir, b.site.slug, 'welcome.mjs'), file);
    const before = receivedByB().length;
    const body = newUser();
    const response = await adminCreate(a, body);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ event: 'PRE_USER_CREATE', function_id: fnId });
    expect(response.body.detail).toMatch(/could not be started/);
    expect(await userExists(body.email)).toBe(false);
    expect(receivedByB().length).toBe(before);
    const failure = lines.find(
      (l) => l.message === 'event_subscriber_failed' && l.fields.function_id === fnId,
    );
    expect(failure?.fields).toMatchObject({
      event: 'PRE_USER_CREATE',
      site: a.site.slug,
      code: 'target_refused',
    });
    expect(JSON.stringify(failure)).not.toContain(body.email);
    await a.owner.post('/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fnId });
  });

  it('refuses at run time a stored target that breaks the rule: POST skips it and tells the others', async () => {
    await subscribe(a, 'POST_USER_CREATE', `${a.site.slug}/hook.mjs`);
    const stale = await storedSubscription(a, 'POST_USER_CREATE', `${b.site.slug}/welcome.mjs`);
    const before = receivedByB().length;
    const published = (line: LogLine) =>
      line.message === 'event_published' && line.fields.event === 'POST_USER_CREATE';
    const publishedBefore = lines.filter(published).length;
    const body = newUser();
    const response = await adminCreate(a, body);
    expect(response.status).toBe(201);
    // Site A's own subscriber runs; B's module, started in the same loop if it were started at all, never does.
    // The subscribers are started (their handlers called) before the publication is logged: awaited, not polled.
    await until(published, publishedBefore + 1);
    expect(receivedByA()).toContain(body.email);
    expect(receivedByB().length).toBe(before);
    const failure = lines.find(
      (l) => l.message === 'event_subscriber_failed' && l.fields.function_id === stale.function_id,
    );
    expect(failure?.fields).toMatchObject({ event: 'POST_USER_CREATE', code: 'target_refused' });
    expect(JSON.stringify(failure)).not.toContain(body.email);
  });

  it('refuses at run time a stored target of another site in PRE: nothing runs and nothing is saved', async () => {
    const stale = await storedSubscription(a, 'PRE_USER_CREATE', `${b.site.slug}/welcome.mjs`);
    const before = receivedByB().length;
    const body = newUser();
    const response = await adminCreate(a, body);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ function_id: stale.function_id });
    expect(await userExists(body.email)).toBe(false);
    expect(receivedByB().length).toBe(before);
  });
});

describe('cross-tenant trust suite: event function targets, cloud Lambda names (runtime aws)', () => {
  const account = '123456789012';
  const arn = (name: string) => `arn:aws:lambda:eu-west-1:${account}:function:${name}`;
  const cloud = (): Config => ({
    ...platform.deps.config,
    runtime: 'aws',
    region: 'eu-west-1',
    events: {
      ...platform.deps.config.events,
      functionAccount: account,
      functionPrefix: 'tenant-fn-',
      stateMachineArn: `arn:aws:states:eu-west-1:${account}:stateMachine:UserCreationEvents`,
    },
  });
  const appOf = (t: Tenant): App => ({ ...t.app, description: '', site: t.site.slug, created_at: '' });
  const registry = () => ({ store: platform.deps.store, clock: platform.deps.clock, config: cloud() });

  async function refusal(work: () => Promise<unknown>): Promise<AppError> {
    try {
      await work();
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('accepted');
  }

  it("refuses site A site B's function name, also where A's slug is a prefix of B's", async () => {
    for (const name of [
      `tenant-fn-${b.site.slug}--welcome`,
      'tenant-fn-welcome',
      `tenant-fn-${a.site.slug}-x`,
    ]) {
      const error = await refusal(() =>
        createFunction(registry(), appOf(a), { name: 'Welcome', target: arn(name) }),
      );
      expect(error.status).toBe(400);
      expect(error.fields).toHaveProperty('target');
      expect(error.message).toContain(`"tenant-fn-${a.site.slug}--"`);
    }
    const theirs = arn(`tenant-fn-${a.site.slug}--welcome`);
    const error = await refusal(() =>
      createFunction(registry(), appOf(b), { name: 'Welcome', target: theirs }),
    );
    expect(error.message).toContain(`"tenant-fn-${b.site.slug}--"`);
  });

  it("registers the site's own function", async () => {
    const own = arn(`tenant-fn-${a.site.slug}--welcome`);
    const fn = await createFunction(registry(), appOf(a), { name: unique('Welcome'), target: own });
    expect(fn.target).toBe(own);
  });

  it('refuses at run time stored names that break the rule: no execution for PRE, no invocation for POST', async () => {
    const sfn = mockClient(SFNClient);
    const lambda = mockClient(LambdaClient);
    sfn.on(StartSyncExecutionCommand).resolves({ status: 'SUCCEEDED' });
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    try {
      const t = await createTenant(platform);
      const legacy = await storedSubscription(t, 'PRE_USER_CREATE', arn('tenant-fn-welcome'));
      await storedSubscription(t, 'POST_USER_CREATE', arn(`tenant-fn-${b.site.slug}--welcome`));
      const own = arn(`tenant-fn-${t.site.slug}--welcome`);
      await storedSubscription(t, 'POST_USER_CREATE', own);
      const cloudLog = captureLog();
      const events = createUserCreationEvents(cloud(), platform.deps.store, cloudLog.log);
      const user = { id: 1, email: 'someone@example.org', username: 'someone' } as never;
      const error = await refusal(() => events.beforeCreate(user, { site: t.site.slug }));
      expect(error.status).toBe(422);
      expect(error.extra).toMatchObject({ function_id: legacy.function_id });
      expect(sfn.commandCalls(StartSyncExecutionCommand)).toHaveLength(0);
      await events.afterCreate(user, { site: t.site.slug });
      expect(lambda.commandCalls(InvokeCommand).map((call) => call.args[0].input.FunctionName)).toEqual([
        own,
      ]);
      const failures = cloudLog.lines.filter((l) => l.message === 'event_subscriber_failed');
      expect(failures.map((l) => l.fields.code)).toEqual(['target_refused', 'target_refused']);
      expect(JSON.stringify(cloudLog.lines)).not.toContain('someone@example.org');
    } finally {
      sfn.restore();
      lambda.restore();
    }
  });
});
