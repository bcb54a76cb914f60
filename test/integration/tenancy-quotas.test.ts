import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

/**
 * Self-service quotas: how many organizations one user may own (ORGANIZATIONS_PER_USER) and how many sites one
 * organization may have (SITES_PER_ORGANIZATION), with small limits so that the tests reach them; superusers are
 * exempt. And the one rule for names: no control characters, no bidirectional overrides.
 */

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform(
    { ORGANIZATIONS_PER_USER: '3', SITES_PER_ORGANIZATION: '2' },
    {},
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
});

const newOrganization = (api: ApiClient) => api.post('/api/cloud/organizations/', { name: unique('Org') });
const newSite = (api: ApiClient, org: string) =>
  api.post(`/api/cloud/organizations/${org}/sites/`, { name: unique('Site') });

describe('organizations a user may own (ORGANIZATIONS_PER_USER)', () => {
  it('creates up to the limit, then answers 403 naming the limit in the detail envelope', async () => {
    const { api } = await createUser(platform);
    for (let i = 0; i < 3; i++) expect((await newOrganization(api)).status).toBe(201);
    const refused = await newOrganization(api);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'You have reached the limit of 3 organizations.' });
    const listed = await api.get('/api/cloud/organizations/');
    expect(listed.body.count).toBe(3);
  });

  it('never lets concurrent creates pass the limit', async () => {
    const { api } = await createUser(platform);
    const answers = await Promise.all(Array.from({ length: 8 }, () => newOrganization(api)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(5);
    expect((await api.get('/api/cloud/organizations/')).body.count).toBe(3);
  });

  it('does not count an organization whose slug was taken (nothing was created)', async () => {
    const { api } = await createUser(platform);
    const slug = unique('taken');
    expect((await api.post('/api/cloud/organizations/', { name: 'A', slug })).status).toBe(201);
    for (let i = 0; i < 3; i++)
      expect((await api.post('/api/cloud/organizations/', { name: 'A', slug })).status).toBe(409);
    expect((await newOrganization(api)).status).toBe(201);
    expect((await newOrganization(api)).status).toBe(201);
    expect((await newOrganization(api)).status).toBe(403);
  });

  it('counts ownership: handing an organization on frees a place, and a new owner at the limit is refused', async () => {
    const giver = await createUser(platform);
    const taker = await createUser(platform);
    const orgs: string[] = [];
    for (let i = 0; i < 3; i++) orgs.push((await newOrganization(giver.api)).body.slug);
    for (let i = 0; i < 3; i++) expect((await newOrganization(taker.api)).status).toBe(201);
    const [first, second] = orgs as [string, string];
    for (const org of [first, second]) {
      const added = await platform.adminApi.post(`/api/cloud/organizations/${org}/members/`, {
        user_id: taker.user.id,
      });
      expect(added.status).toBe(200);
    }
    // The taker owns three already: it cannot be given a fourth.
    const refused = await giver.api.post(`/api/cloud/organizations/${first}/transfer-ownership/`, {
      user_id: taker.user.id,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ user_id: ['The user has reached the limit of 3 organizations.'] });
    expect((await giver.api.get(`/api/cloud/organizations/${first}/`)).body.role).toBe('owner');
    expect((await newOrganization(giver.api)).status).toBe(403);

    // Handed on to a superuser (exempt from the limit), the organization no longer counts for the giver.
    const superuser = await platform.adminApi.get('/api/cloud/users/me/');
    await platform.adminApi.post(`/api/cloud/organizations/${second}/members/`, {
      user_id: superuser.body.id,
    });
    const handed = await giver.api.post(`/api/cloud/organizations/${second}/transfer-ownership/`, {
      user_id: superuser.body.id,
    });
    expect(handed.status).toBe(200);
    expect((await newOrganization(giver.api)).status).toBe(201);
    expect((await newOrganization(giver.api)).status).toBe(403);
  });

  it('exempts superusers', async () => {
    for (let i = 0; i < 4; i++) expect((await newOrganization(platform.adminApi)).status).toBe(201);
  });
});

describe('sites of an organization (SITES_PER_ORGANIZATION)', () => {
  it('creates up to the limit, then answers 403 naming the limit', async () => {
    const { api } = await createUser(platform);
    const org = (await newOrganization(api)).body.slug;
    for (let i = 0; i < 2; i++) expect((await newSite(api, org)).status).toBe(201);
    const refused = await newSite(api, org);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'This organization has reached the limit of 2 sites.' });
    expect((await api.get(`/api/cloud/organizations/${org}/sites/`)).body.count).toBe(2);
  });

  it('never lets concurrent creates pass the limit', async () => {
    const { api } = await createUser(platform);
    const org = (await newOrganization(api)).body.slug;
    const answers = await Promise.all(Array.from({ length: 6 }, () => newSite(api, org)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(4);
    expect((await api.get(`/api/cloud/organizations/${org}/sites/`)).body.count).toBe(2);
  });

  it('counts per organization, and exempts superusers', async () => {
    const { api } = await createUser(platform);
    const [a, b] = [(await newOrganization(api)).body.slug, (await newOrganization(api)).body.slug];
    for (let i = 0; i < 2; i++) expect((await newSite(api, a)).status).toBe(201);
    expect((await newSite(api, b)).status).toBe(201);
    expect((await newSite(platform.adminApi, a)).status).toBe(201);
    expect((await newSite(api, a)).status).toBe(403);
  });
});

describe('names: no control characters, no bidirectional overrides', () => {
  const refusedNames = [
    'Acme\u0000',
    'Ac\nme',
    'Acme\t',
    'Acme\u001f',
    'Acme\u007f',
    'Acme\u0085',
    'Acme\u009f',
    '\u202eemcA',
    'Acme\u202a',
    'Acme\u2066x\u2069',
  ];

  const codePoints = (name: string) =>
    [...name]
      .filter((c) => !/[A-Za-z]/.test(c))
      .map((c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`)
      .join(' ');

  it.each(refusedNames.map((name) => [codePoints(name), name]))(
    'refuses an organization name holding %s with a 400 naming name',
    async (_shown, name) => {
      const response = await platform.adminApi.post('/api/cloud/organizations/', { name });
      expect(response.status).toBe(400);
      // U+0000 is refused in every body field before the schema (it cannot be stored), with its own message.
      const message = name.includes('\u0000')
        ? 'Contains the character U+0000, which cannot be stored.'
        : 'Names may not hold control characters or bidirectional overrides.';
      expect(response.body).toEqual({ name: [message] });
    },
  );

  it('refuses such a site name and app name alike, and takes names in any script', async () => {
    const { api } = await createUser(platform);
    const org = (await newOrganization(api)).body.slug;
    const site = await api.post(`/api/cloud/organizations/${org}/sites/`, { name: 'Shop\u202e' });
    expect(site.status).toBe(400);
    expect(site.body).toEqual({
      name: ['Names may not hold control characters or bidirectional overrides.'],
    });
    const good = await api.post(`/api/cloud/organizations/${org}/sites/`, {
      name: 'Café 日本 ✓',
      slug: unique('cafe'),
    });
    expect(good.status).toBe(201);
    expect(good.body.name).toBe('Café 日本 ✓');
    const app = await api.forSite(good.body.slug).post('/api/apps/', { name: 'Store\u0007' });
    expect(app.status).toBe(400);
    expect(app.body).toEqual({ name: ['Names may not hold control characters or bidirectional overrides.'] });
  });
});

describe('who may create organizations (ORGANIZATION_CREATORS=superusers)', () => {
  let closed: TestPlatform;
  beforeAll(async () => {
    closed = await startTestPlatform({ ORGANIZATION_CREATORS: 'superusers' }, {}, { dataPlane: false });
  });
  afterAll(async () => {
    await closed.stop();
  });

  it('answers 403 to a plain user and creates for a superuser', async () => {
    const { api } = await createUser(closed);
    const refused = await newOrganization(api);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Only superusers may create organizations on this platform.' });
    expect((await api.get('/api/cloud/organizations/')).body.count).toBe(0);
    expect((await newOrganization(closed.adminApi)).status).toBe(201);
  });
});
