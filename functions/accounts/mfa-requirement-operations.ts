import { ok } from '../../shared/api/result';
import { NotFoundError } from '../../shared/errors';
import { currentUser } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { setRequireMfa } from '../../shared/mfa/organization-requirement';
import type { organizationMfaRoutes } from '../../shared/mfa/organization-routes';

/** An organization's `require_mfa` (shared/mfa/organization-requirement.ts; the check: shared/policy/second-factor.ts). */
export const organizationMfaOperations = {
  async setOrganizationRequireMfa(ctx) {
    const organization = ctx.organization?.organization;
    if (!organization) throw new NotFoundError();
    return ok(await setRequireMfa(ctx.deps, organization, ctx.body.require_mfa, currentUser(ctx).id));
  },
} satisfies TypedOperations<typeof organizationMfaRoutes>;
