import { describe, expect, it } from 'vitest';
import type { Site, SitePermission, User } from '../../shared/accounts/model';
import { AuthenticationError, PermissionDeniedError } from '../../shared/errors';
import { enforce, isSitePermission, needsUser, readsUser } from '../../shared/policy/permissions';
import { can, type SiteAccess } from '../../shared/policy/policy';

const site: Site = {
  id: 1,
  slug: 's',
  name: 'S',
  organization_id: 1,
  organization_slug: 'o',
  created_at: '',
};
const user: User = {
  id: 2,
  uuid: 'u',
  username: 'u',
  email: 'u@example.com',
  first_name: '',
  last_name: '',
  is_active: true,
  is_superuser: false,
  email_verified: false,
  date_joined: '',
  last_login: null,
};

function access(permissions: SitePermission[], extra: Partial<SiteAccess> = {}): SiteAccess {
  return { site, user, organizationRole: 'member', permissions: new Set(permissions), ...extra };
}

describe('can', () => {
  it('gives access_site alone access and nothing else', () => {
    expect(can(access(['access_site']), 'access')).toBe(true);
    expect(can(access(['access_site']), 'view')).toBe(false);
  });

  it('lets change_site view and change but not delete or configure', () => {
    const a = access(['change_site']);
    expect([can(a, 'view'), can(a, 'change'), can(a, 'delete'), can(a, 'configure')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('lets admin_site do everything', () => {
    for (const action of [
      'administer',
      'configure',
      'manage_users',
      'change',
      'delete',
      'view',
      'access',
    ] as const) {
      expect(can(access(['admin_site']), action)).toBe(true);
    }
  });

  it('lets organization owners and admins and superusers do everything', () => {
    expect(can(access([], { organizationRole: 'owner' }), 'configure')).toBe(true);
    expect(can(access([], { organizationRole: 'admin' }), 'delete')).toBe(true);
    expect(
      can(access([], { user: { ...user, is_superuser: true }, organizationRole: null }), 'administer'),
    ).toBe(true);
  });

  it('refuses anonymous and inactive users', () => {
    expect(can(access(['admin_site'], { user: null }), 'view')).toBe(false);
    expect(can(access(['admin_site'], { user: { ...user, is_active: false } }), 'view')).toBe(false);
  });
});

describe('the secret store rules', () => {
  const anonymous = { user: null, site: { ...access([]), user: null }, organization: null };
  const input = { params: {}, body: {} };

  it('lets anonymous callers through rule:secret-read, and reads a token when one is sent', () => {
    expect(needsUser('rule:secret-read')).toBe(false);
    expect(readsUser('rule:secret-read')).toBe(true);
    expect(isSitePermission('rule:secret-read')).toBe(true);
    expect(() => enforce('rule:secret-read', anonymous, input)).not.toThrow();
  });

  it('asks a signed-in reader for view on the site', () => {
    const principal = (permissions: SitePermission[]) => ({
      user,
      site: access(permissions),
      organization: null,
    });
    expect(() => enforce('rule:secret-read', principal(['access_site']), input)).toThrow(
      PermissionDeniedError,
    );
    expect(() => enforce('rule:secret-read', principal(['view_site']), input)).not.toThrow();
  });

  it('keeps system types to superusers and custom ones to configure', () => {
    const owner = { user, site: access([], { organizationRole: 'owner' }), organization: null };
    const system = { params: {}, body: { type: 'system' } };
    expect(() =>
      enforce('rule:secret-type-create', owner, { params: {}, body: { type: 'custom' } }),
    ).not.toThrow();
    expect(() => enforce('rule:secret-type-create', owner, system)).toThrow(PermissionDeniedError);
    const superuser = { ...owner, user: { ...user, is_superuser: true } };
    expect(() => enforce('rule:secret-type-create', superuser, system)).not.toThrow();
    expect(() => enforce('rule:secret-type-create', anonymous, input)).toThrow(AuthenticationError);
  });
});
