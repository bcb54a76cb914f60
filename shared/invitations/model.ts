import type { SitePermission } from '../accounts/model';
import type { GroupRef } from '../groups/model';

/** The invitation domain: an organization's offer to one e-mail address, carrying groups and site permissions. */

export interface InvitationConfig {
  group: string[];
  site: Array<{ slug: string; permissions: SitePermission[] }>;
}

/** A stored invitation; `delivery` is internal e-mail metadata that responses never show. */
export interface StoredInvitation {
  id: number;
  /** The public token: a CSPRNG UUID v4, the only credential of the public endpoints. */
  uuid: string;
  organization: number;
  organization_slug: string;
  organization_name: string;
  invitee_identifier: string;
  invited_by: number;
  /** The placeholder or existing user the invitation is for. */
  invitee: number;
  config: InvitationConfig;
  /**
   * The groups of `config.group` as they were when the invitation was made (internal, never shown): acceptance
   * assigns these, so a renamed group is still assigned and a deleted one (even if remade with its name) is not.
   */
  group_refs?: GroupRef[];
  created: string;
  /** Set, with `accepted_at`, by the acceptance transaction; a used invitation answers 410. */
  used: boolean;
  accepted_at: string | null;
  delivery: { sent_count: number; last_sent_at: string | null; last_error: string | null };
}

/** DynamoDB keys of invitations (docs/data-model.md). */
export const invitationKeys = {
  invitation: (uuid: string) => ({ PK: `INVITATION#${uuid}`, SK: 'PROFILE' }),
  /** GSI1 partition of an organization's invitations, sorted by id (creation order). */
  organizationIndex: (org: string) => `ORG#${org}#INVITATIONS`,
} as const;

/** The UUID v4 form; anything else is answered like an unknown token. */
export const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
