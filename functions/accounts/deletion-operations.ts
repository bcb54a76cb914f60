import { getSite, listOrganizationSites } from '../../shared/accounts/sites';
import { getUser } from '../../shared/accounts/users';
import { noContent, ok } from '../../shared/api/result';
import { NotFoundError, ValidationError } from '../../shared/errors';
import { currentUser, siteContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { markAppDeleted } from '../../shared/lifecycle/apps';
import { deletionKeys } from '../../shared/lifecycle/keys';
import { markOrganizationDeleted } from '../../shared/lifecycle/organizations';
import type { deletionRoutes } from '../../shared/lifecycle/routes';
import { budgetOf, cleanUpOne, finishPendingDeletions } from '../../shared/lifecycle/runner';
import { markSiteDeleted } from '../../shared/lifecycle/sites';
import { markUserDeleted } from '../../shared/lifecycle/users';

/** The call names what it deletes twice: `confirm` must be the path's object's slug (or username). */
function confirmed(given: string | undefined, name: string, what: string): void {
  if (given !== name)
    throw ValidationError.field(
      'confirm',
      `Give the ${what} of what is deleted as confirm.`,
      'not_confirmed',
    );
}

/** 202: the rest of the cleanup is handed over (the background sweep), and goes on with no further request. */
async function underWay(ctx: { deps: { deletions: { handOff(): Promise<void> } } }, what: string) {
  await ctx.deps.deletions.handOff();
  return ok({ detail: `${what} is deleted; the cleanup of what it held goes on.` }, 202);
}

/**
 * Deletions (shared/lifecycle): the tombstone first, then as much of the cleanup as DELETION_STEPS_PER_REQUEST
 * allows. The pipeline has enforced who may (shared/policy). Each first finishes what earlier deletions of the
 * same scope left.
 */
export const deletionOperations = {
  async deleteApp(ctx) {
    const { access } = siteContext(ctx);
    if (!ctx.app) throw new NotFoundError();
    const budget = budgetOf(ctx.deps);
    await finishPendingDeletions(ctx.deps, deletionKeys.appsOf(access.site.slug), budget);
    const tomb = await markAppDeleted(ctx.deps, access.site, ctx.app, currentUser(ctx).id);
    if (budget.left > 0 && (await cleanUpOne(ctx.deps, tomb, budget))) return noContent();
    return underWay(ctx, `App "${tomb.app_slug}"`);
  },

  async deleteSite(ctx) {
    if (!ctx.organization) throw new NotFoundError();
    const { organization } = ctx.organization;
    const site = await getSite(ctx.deps.store, ctx.params.site_slug ?? '');
    if (!site || site.organization_slug !== organization.slug) throw new NotFoundError();
    confirmed(ctx.query.confirm, site.slug, "site's slug");
    const budget = budgetOf(ctx.deps);
    const tomb = await markSiteDeleted(ctx.deps, site, currentUser(ctx).id);
    if (await cleanUpOne(ctx.deps, tomb, budget)) return noContent();
    return underWay(ctx, `Site "${site.slug}"`);
  },

  async deleteOrganization(ctx) {
    if (!ctx.organization) throw new NotFoundError();
    const { organization } = ctx.organization;
    confirmed(ctx.query.confirm, organization.slug, "organization's slug");
    const budget = budgetOf(ctx.deps);
    // Its sites go first, each with its tombstone (at most SITES_PER_ORGANIZATION, but for superusers' additions):
    // from here on none of them is served, even while the organization's cleanup is still owed.
    const caller = currentUser(ctx).id;
    for (const site of await listOrganizationSites(ctx.deps.store, organization.slug))
      await markSiteDeleted(ctx.deps, site, caller).catch((error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
      });
    const tomb = await markOrganizationDeleted(ctx.deps, organization, currentUser(ctx).id);
    if (await cleanUpOne(ctx.deps, tomb, budget)) return noContent();
    return underWay(ctx, `Organization "${organization.slug}"`);
  },

  async deleteUser(ctx) {
    const budget = budgetOf(ctx.deps);
    await finishPendingDeletions(ctx.deps, deletionKeys.usersPrefix, budget);
    const user = await getUser(ctx.deps.store, Number(ctx.params.user_id));
    if (!user) throw new NotFoundError();
    confirmed(ctx.query.confirm, user.username, 'username');
    const tomb = await markUserDeleted(ctx.deps, user.id, currentUser(ctx).id);
    if (budget.left > 0 && (await cleanUpOne(ctx.deps, tomb, budget))) return noContent();
    return underWay(ctx, 'The account');
  },
} satisfies TypedOperations<typeof deletionRoutes>;
