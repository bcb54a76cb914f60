import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

/** An organization's require_mfa (issue 39, item 8): members without a second factor are refused its routes. */

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.stop();
});

/** Enrols and confirms a TOTP factor for the client's user (the code an app shows now, computed with otpauth). */
async function enrol(api: ApiClient): Promise<void> {
  const { secret } = (await api.post('/api/auth/mfa/totp/')).body;
  const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
  expect((await api.post('/api/auth/mfa/totp/confirm/', { code })).status).toBe(200);
}

/** A member of the tenant's organization who may view its site (and so list its apps). */
async function memberOf(tenant: Tenant, site = tenant.site.slug): Promise<ApiClient> {
  const member = await createUser(platform);
  await grantSite({ ...tenant, site: { ...tenant.site, slug: site } }, member.user.id, ['view_site']);
  return member.api.forSite(site);
}

const requireMfa = (tenant: Tenant, on: boolean) =>
  tenant.owner.put(`/api/cloud/organizations/${tenant.organization.slug}/require-mfa/`, { require_mfa: on });

describe("an organization's require_mfa", () => {
  it('cannot be turned on by an owner without a factor (409), nor by a member (403)', async () => {
    const tenant = await createTenant(platform);
    const refused = await requireMfa(tenant, true);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/second factor/);
    const member = await memberOf(tenant);
    const byMember = await member.put(`/api/cloud/organizations/${tenant.organization.slug}/require-mfa/`, {
      require_mfa: true,
    });
    expect(byMember.status).toBe(403);
  });

  it('refuses members without a factor on the organization and its sites with 403, until they enrol', async () => {
    const tenant = await createTenant(platform);
    await enrol(tenant.owner);
    const on = await requireMfa(tenant, true);
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ slug: tenant.organization.slug, require_mfa: true });
    const member = await memberOf(tenant);
    const organization = await member.get(`/api/cloud/organizations/${tenant.organization.slug}/`);
    expect(organization.status).toBe(403);
    expect(organization.body).toEqual({
      detail: expect.stringMatching(/second factor/),
      code: 'mfa_enrolment_required',
    });
    const apps = await member.get('/api/apps/');
    expect(apps.status).toBe(403);
    expect(apps.body.code).toBe('mfa_enrolment_required');
    // Their own account, and enrolling, stay open.
    expect((await member.get('/api/cloud/users/me/')).status).toBe(200);
    expect((await member.get('/api/auth/mfa/')).status).toBe(200);
    // The owner, who has a factor, goes on.
    expect((await tenant.owner.get('/api/apps/')).status).toBe(200);
    await enrol(member);
    expect((await member.get(`/api/cloud/organizations/${tenant.organization.slug}/`)).status).toBe(200);
    expect((await member.get('/api/apps/')).status).toBe(200);
  });

  it('holds for sites made after it was turned on, and ends when it is turned off', async () => {
    const tenant = await createTenant(platform);
    await enrol(tenant.owner);
    expect((await requireMfa(tenant, true)).status).toBe(200);
    const site = await tenant.owner.post(`/api/cloud/organizations/${tenant.organization.slug}/sites/`, {
      name: 'Later site',
    });
    expect(site.status).toBe(201);
    expect(site.body.require_mfa).toBe(true);
    const member = await memberOf(tenant, site.body.slug);
    const refused = await member.get('/api/apps/');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('mfa_enrolment_required');
    expect((await requireMfa(tenant, false)).status).toBe(200);
    expect((await member.get('/api/apps/')).status).toBe(200);
  });

  it('holds for the data plane: records of a site of that organization', async () => {
    const tenant = await createTenant(platform);
    await createTable(tenant.owner, tenant.app.slug, 'notes', {
      fields: [{ name: 'title', type: 'string' }],
    });
    await insert(tenant.owner, tenant.app.slug, 'notes', { title: 'kept' });
    const member = await memberOf(tenant);
    expect((await member.get(dataPath(tenant.app.slug, 'notes'))).status).toBe(200);
    await enrol(tenant.owner);
    expect((await requireMfa(tenant, true)).status).toBe(200);
    const refused = await member.get(dataPath(tenant.app.slug, 'notes'));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('mfa_enrolment_required');
    expect((await tenant.owner.get(dataPath(tenant.app.slug, 'notes'))).status).toBe(200);
  });

  it("does not reach another organization's members", async () => {
    const strict = await createTenant(platform);
    await enrol(strict.owner);
    expect((await requireMfa(strict, true)).status).toBe(200);
    const other = await createTenant(platform);
    expect((await other.owner.get('/api/apps/')).status).toBe(200);
    expect((await other.owner.get(`/api/cloud/organizations/${other.organization.slug}/`)).status).toBe(200);
  });
});

describe('require_mfa and API keys', () => {
  it("leaves a site's API key working: a key has no second factor to give", async () => {
    const tenant = await createTenant(platform);
    await createTable(tenant.owner, tenant.app.slug, 'notes', {
      fields: [{ name: 'title', type: 'string' }],
    });
    const made = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/api-keys/`,
      { name: 'Backend', permissions: ['change_site'] },
    );
    expect(made.status, made.text).toBe(201);
    await enrol(tenant.owner);
    expect((await requireMfa(tenant, true)).status).toBe(200);
    const backend = platform.api.withToken(made.body.key).forSite(tenant.site.slug);
    const written = await backend.post(dataPath(tenant.app.slug, 'notes'), { title: 'from a backend' });
    expect(written.status, written.text).toBe(201);
    // A member without a factor is refused the same route.
    const member = await memberOf(tenant);
    expect((await member.get(dataPath(tenant.app.slug, 'notes'))).status).toBe(403);
  });
});
