import { PermissionDeniedError } from '../errors';
import { hasSecondFactor } from '../mfa/model';
import type { Principal } from './permissions';

/**
 * An organization's `require_mfa` (issue 39, item 8): on the routes of that organization (its path) and of its
 * sites (the request's site carries a copy of the flag), a signed-in user without a confirmed second factor is
 * answered 403 `mfa_enrolment_required` until they enrol. It binds the organization's members (owner, admins,
 * members); a platform superuser who is not a member is the platform's operator, not the organization's, and
 * is not bound by it. Routes of no organization (signing in, one's own account, enrolling
 * at `/api/auth/mfa/totp/`) are never affected. The caller is authorized first: someone the route refuses anyway
 * hears that refusal, not this one. API keys (a principal without a user, when they exist) are not affected:
 * a key has no second factor to give; merging them must keep this check to user principals.
 */
export function requiresSecondFactor(principal: Principal): boolean {
  const { organization, site } = principal;
  const inOrganization = organization?.organization.require_mfa === true && organization.role !== null;
  const inSite = site?.site.require_mfa === true && site.organizationRole !== null;
  return inOrganization || inSite;
}

export function requireSecondFactorWhereRequired(principal: Principal, storedUser: object | null): void {
  if (!principal.user || !requiresSecondFactor(principal)) return;
  if (hasSecondFactor(storedUser ?? undefined)) return;
  throw new PermissionDeniedError({
    code: 'mfa_enrolment_required',
    message:
      'This organization requires a second factor: set one up at /api/auth/mfa/totp/ (the account page offers it).',
    extra: { code: 'mfa_enrolment_required' },
  });
}
