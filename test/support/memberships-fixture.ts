import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ApiClient } from './client';
import { strictClock } from './clock';
import { startTestPlatform, type TestPlatform } from './platform';
import { createTenant, createUser, type Tenant, unique } from './tenant';

const { clock, advance: moveClock } = strictClock();

/** Moves the platform's clock ahead (expiries). */
export const advance = moveClock;
/** An instant `seconds` from the platform's now, ISO 8601. */
export const inSeconds = (seconds: number) => new Date(clock().getTime() + seconds * 1000).toISOString();

export let platform: TestPlatform;
export let tenant: Tenant;
export let owner: ApiClient;
export let appRole: string;
export let otherAppRole: string;
export let siteRole: string;
/** Three users whose fields sort differently by each field. */
export type Person = { id: number; username: string; email: string };
export let ann: Person;
export let bob: Person;
export let cid: Person;

/**
 * The memberships fixture shared by the roles-memberships test files: one platform with three users whose fields sort
 * differently, and before each test a fresh tenant with an application role, another app's role and a site role.
 * Call it once at the top of a test file; the exported bindings are live.
 */
export function setupMembershipFixture(): void {
  beforeAll(async () => {
    // Access tokens outlive the time this file moves the clock ahead.
    platform = await startTestPlatform({ ACCESS_TOKEN_SECONDS: String(30 * 24 * 3600) }, { clock });
    const tag = unique('m');
    ann = (
      await createUser(platform, {
        username: `ann-${tag}`,
        email: `zz-ann-${tag}@example.com`,
        first_name: 'Ann',
        last_name: 'Young',
      })
    ).user;
    bob = (
      await createUser(platform, {
        username: `bob-${tag}`,
        email: `aa-bob-${tag}@example.com`,
        first_name: 'Zoe',
        last_name: 'Adams',
      })
    ).user;
    cid = (
      await createUser(platform, {
        username: `cid-${tag}`,
        email: `mm-cid-${tag}@example.com`,
        first_name: 'Max',
        last_name: 'Moss',
      })
    ).user;
  });
  afterAll(async () => {
    await platform.stop();
  });
  beforeEach(async () => {
    tenant = await createTenant(platform);
    owner = tenant.owner;
    appRole = (await owner.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Editor' })).body.data.slug;
    const other = await owner.post('/api/apps/', { name: 'Billing' });
    otherAppRole = (await owner.post(`/api/app/${other.body.slug}/roles`, { name: 'Payer' })).body.data.slug;
    siteRole = (await owner.post('/api/roles/', { name: 'Staff', role_slugs: [appRole] })).body.data.slug;
  });
}

export const usernamesOf = (response: { body: { data: { username: string }[] } }) =>
  response.body.data.map((user) => user.username);
export const slugsOf = (refs: { slug: string }[]) => refs.map((ref) => ref.slug);
export const rolesOf = async (username: string, query = '') =>
  (await owner.get(`/api/users/${username}/roles${query}`)).body.data as {
    app_roles: { name: string; slug: string }[];
    site_roles: { name: string; slug: string }[];
  };
