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
  /**
   * The organization's handle on the invitation (detail, cancel, resend): its members see it. It is not the public
   * token, which only the e-mail carries (shared/invitations/tokens.ts).
   */
  uuid: string;
  /** SHA-256 of the current public token (internal, never shown); a resend replaces it. */
  token_hash: string;
  /** When the current token stops working (ISO 8601); set at create and at every resend. */
  expires_at: string;
  organization: number;
  organization_slug: string;
  organization_name: string;
  invitee_identifier: string;
  invited_by: number;
  /** The placeholder or existing user the invitation is for (shown to the organization only once accepted). */
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
  /** The sentinel of a public token, by its hash; `invitation_uuid` names the invitation. */
  token: (hash: string) => ({ PK: `INVITATION_TOKEN#${hash}`, SK: 'TOKEN' }),
  /**
   * The mark of a placeholder account that an invitation created (made with the user, in its transaction, and
   * removed when an acceptance activates it): only such an inactive account may be activated by an acceptance.
   */
  placeholder: (userId: number) => ({ PK: `USER#${userId}`, SK: 'INVITATION_PLACEHOLDER' }),
  /** GSI1 partition of an organization's invitations, sorted by id (creation order). */
  organizationIndex: (org: string) => `ORG#${org}#INVITATIONS`,
} as const;

/** The UUID v4 form of an invitation's uuid; anything else is not looked up. */
export const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
