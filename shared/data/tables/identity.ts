import { ConflictError } from '../../errors';
import type { Logger } from '../../log';

/**
 * Whose tables a catalog row holds. PostgreSQL names come from what DynamoDB hands out (`site_<slug>`,
 * `a<app id>_<name>`); if DynamoDB is restored to an older moment than PostgreSQL, a new site or app can get an old
 * slug or id again and, by name alone, would read the old one's tables. So every catalog row (and each site's
 * registry row) records the identity of its site and app as the control plane states it: their creation time, which
 * is immutable and which a site or app created again after a restore never shares (it is created later). A row of
 * another identity is refused loudly, never served (docs/data-model.md, "Restoring the two stores").
 */
export interface Owner {
  appId: number;
  /** The app's `created_at` in DynamoDB. */
  app: string;
  /** The site's `created_at` in DynamoDB. */
  site: string;
  siteSlug: string;
  log?: Logger | undefined;
}

/** The identities a catalog row records; null in rows written before identities were recorded (claimed lazily). */
export interface RecordedIdentity {
  app_identity: string | null;
  site_identity: string | null;
}

/** 409 in the data envelope: the stores disagree, which only an operator can settle. Logged as an error. */
export function storesDisagree(owner: Owner, what: 'app' | 'site'): ConflictError {
  const message =
    what === 'app'
      ? `The data store holds tables of an earlier app with id ${owner.appId}: the control plane and the data store were restored to different moments. Nothing is read or written for this app until an operator reconciles them.`
      : `The data store holds tables of an earlier site "${owner.siteSlug}": the control plane and the data store were restored to different moments. Nothing is created in this site until an operator reconciles them.`;
  owner.log?.error('stores disagree: data plane rows of an identity the control plane does not know', {
    site: owner.siteSlug,
    app_id: owner.appId,
    what,
  });
  return new ConflictError({ code: 'stores_disagree', message, title: 'Stores disagree' });
}

/** Whether a recorded identity is another one than the owner's (a null is not recorded yet, so not another). */
export function isAnother(recorded: RecordedIdentity, owner: Owner): 'app' | 'site' | undefined {
  if (recorded.site_identity !== null && recorded.site_identity !== owner.site) return 'site';
  if (recorded.app_identity !== null && recorded.app_identity !== owner.app) return 'app';
  return undefined;
}
