import { randomUUID } from 'node:crypto';
import type { Organization, SitePermission, User } from '../accounts/model';
import { listOrganizationSites } from '../accounts/sites';
import type { UserCreationEvents } from '../accounts/user-creation-events';
import { createUser, findUserByEmail, type UserCreationDeps } from '../accounts/users';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Config } from '../config';
import { AppError, ValidationError } from '../errors';
import { groupsByName } from '../groups/lookup';
import type { Group } from '../groups/model';
import type { Logger } from '../log';
import { type Mailer, withoutSecret } from '../mail/mailer';
import type { Store } from '../store/store';
import { nextId } from '../store/store';
import { type InvitationWording, invitationMessage } from './mail';
import { type InvitationConfig, invitationKeys, type StoredInvitation } from './model';
import { putInvitation, recordDelivery, replaceToken } from './repository';
import { mintToken } from './tokens';

export type InvitationDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly events: UserCreationEvents;
  readonly mailer: Mailer;
  readonly config: Config;
};

export interface NewInvitation {
  invitee_identifier: string;
  invitation_config?: Partial<InvitationConfig> | undefined;
}

/**
 * The groups an invitation names, each an existing group of the organization (names ignore case); a name that
 * names none is refused, naming it, rather than dropped or created (docs/organizations.md).
 */
async function namedGroups(
  deps: InvitationDeps,
  org: string,
  config: Partial<InvitationConfig> | undefined,
): Promise<Group[]> {
  const { found, missing } = await groupsByName(deps.store, org, config?.group ?? []);
  if (missing.length > 0) {
    throw new ValidationError({
      fields: {
        invitation_config: missing.map((name) => `Group "${name}" does not exist in this organization.`),
      },
      message: `Group "${missing[0]}" does not exist in this organization.`,
      code: 'unknown_group',
    });
  }
  return found;
}

/** The site grants of a configuration, one per slug (a slug named twice gets both lists of permissions). */
export function siteGrants(config: Partial<InvitationConfig> | undefined): InvitationConfig['site'] {
  const bySlug = new Map<string, Set<SitePermission>>();
  for (const { slug, permissions } of config?.site ?? []) {
    const held = bySlug.get(slug) ?? new Set<SitePermission>();
    for (const permission of permissions) held.add(permission);
    bySlug.set(slug, held);
  }
  return [...bySlug].map(([slug, permissions]) => ({ slug, permissions: [...permissions] }));
}

/**
 * Creates the inactive placeholder account of an invitee without one, marked (in the same transaction) as made by
 * an invitation: only such an account may be activated by an acceptance.
 */
export function createPlaceholder(
  deps: UserCreationDeps,
  email: string,
  organization: string,
): Promise<User> {
  return createUser(
    deps,
    { email, is_active: false, password: null },
    {
      scope: { organization },
      alsoCreate: (user) => [{ ...invitationKeys.placeholder(user.id), created: user.date_joined }],
    },
  );
}

/** The user the invitation is for: the existing account of the e-mail, or a new inactive placeholder. */
async function inviteeFor(deps: UserCreationDeps, email: string, organization: string): Promise<User> {
  const existing = await findUserByEmail(deps.store, email);
  if (existing) return existing;
  try {
    return await createPlaceholder(deps, email, organization);
  } catch (error) {
    // A parallel invitation created the placeholder first: use it.
    const raced = error instanceof AppError && error.code === 'user_exists';
    const found = raced ? await findUserByEmail(deps.store, email) : undefined;
    if (found) return found;
    throw error;
  }
}

/** Creates a pending invitation (and the invitee's placeholder account when needed), then e-mails the invitee. */
export async function createInvitation(
  deps: InvitationDeps,
  log: Logger,
  organization: Organization,
  inviter: User,
  input: NewInvitation,
): Promise<{ invitation: StoredInvitation; invitee: User }> {
  const groups = await namedGroups(deps, organization.slug, input.invitation_config);
  const email = input.invitee_identifier.trim();
  const invitee = await inviteeFor(deps, email, organization.slug);
  const { token, hash } = mintToken();
  const invitation: StoredInvitation = {
    id: await nextId(deps.store, 'invitation'),
    uuid: randomUUID(),
    token_hash: hash,
    expires_at: expiryFrom(deps),
    organization: organization.id,
    organization_slug: organization.slug,
    organization_name: organization.name,
    invitee_identifier: email,
    invited_by: inviter.id,
    invitee: invitee.id,
    config: { group: groups.map((group) => group.name), site: siteGrants(input.invitation_config) },
    group_refs: groups.map((group) => ({ id: group.id, slug: group.slug })),
    created: iso(deps.clock()),
    used: false,
    accepted_at: null,
    delivery: { sent_count: 0, last_sent_at: null, last_error: null },
  };
  await putInvitation(deps.store, invitation);
  await deliver(deps, log, invitation, token, invitee.is_active ? 'sign-in' : 'first-time-setup');
  return { invitation, invitee };
}

/** When a token minted now stops working (`INVITATION_TTL_SECONDS` ahead). */
function expiryFrom(deps: InvitationDeps): string {
  return iso(new Date(deps.clock().getTime() + deps.config.invitationTtlSeconds * 1000));
}

/** Whether an invitation's current token has expired. */
export function isExpired(deps: InvitationDeps, invitation: StoredInvitation): boolean {
  return Date.parse(invitation.expires_at) <= deps.clock().getTime();
}

/**
 * Sends a pending invitation again with a new token and a new expiry: the older link stops working. Undefined when
 * the invitation was accepted, cancelled or resent meanwhile (nothing was sent); otherwise whether the e-mail went.
 */
export async function resendInvitation(
  deps: InvitationDeps,
  log: Logger,
  invitation: StoredInvitation,
  wording: InvitationWording,
): Promise<boolean | undefined> {
  const { token, hash } = mintToken();
  const expiresAt = expiryFrom(deps);
  if (!(await replaceToken(deps.store, invitation, hash, expiresAt))) return undefined;
  return deliver(deps, log, { ...invitation, token_hash: hash, expires_at: expiresAt }, token, wording);
}

/**
 * Sends the invitation e-mail, the only place the token goes. A refused message does not undo the invitation (it
 * can be resent): the failure is logged, without the token, and kept in the delivery metadata.
 */
async function deliver(
  deps: InvitationDeps,
  log: Logger,
  invitation: StoredInvitation,
  token: string,
  wording: InvitationWording,
): Promise<boolean> {
  const at = iso(deps.clock());
  try {
    await deps.mailer.send(invitationMessage(deps.config, invitation, token, wording));
    await recordDelivery(deps.store, invitation.uuid, at, null);
    return true;
  } catch (error) {
    const reason = withoutSecret(
      error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      token,
    ) as string;
    log.error('invitation e-mail not sent', { invitation_id: invitation.id, reason });
    await recordDelivery(deps.store, invitation.uuid, at, reason);
    return false;
  }
}

/** Site slugs of the configuration that the organization has (acceptance ignores the others). */
export async function organizationSiteSlugs(deps: InvitationDeps, org: string): Promise<Set<string>> {
  return new Set((await listOrganizationSites(deps.store, org)).map((site) => site.slug));
}
