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
import type { Mailer } from '../mail/mailer';
import type { Store } from '../store/store';
import { nextId } from '../store/store';
import { type InvitationWording, invitationMessage } from './mail';
import type { InvitationConfig, StoredInvitation } from './model';
import { listInvitations, putInvitation, recordDelivery } from './repository';

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

/** The user the invitation is for: the existing account of the e-mail, or a new inactive placeholder. */
async function inviteeFor(deps: UserCreationDeps, email: string, organization: string): Promise<User> {
  const existing = await findUserByEmail(deps.store, email);
  if (existing) return existing;
  try {
    return await createUser(deps, { email, is_active: false, password: null }, { scope: { organization } });
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
  const invitation: StoredInvitation = {
    id: await nextId(deps.store, 'invitation'),
    uuid: randomUUID(),
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
  await deliver(deps, log, invitation, invitee.is_active ? 'sign-in' : 'first-time-setup');
  return { invitation, invitee };
}

/**
 * Sends the invitation e-mail. A refused message does not undo the invitation (it can be resent): the failure is
 * logged, without the token, and kept in the delivery metadata.
 */
export async function deliver(
  deps: InvitationDeps,
  log: Logger,
  invitation: StoredInvitation,
  wording: InvitationWording,
): Promise<boolean> {
  const at = iso(deps.clock());
  try {
    await deps.mailer.send(invitationMessage(deps.config, invitation, wording));
    await recordDelivery(deps.store, invitation.uuid, at, null);
    return true;
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('invitation e-mail not sent', { invitation_id: invitation.id, reason });
    await recordDelivery(deps.store, invitation.uuid, at, reason);
    return false;
  }
}

/** The most recently created pending invitation of the organization for a user, if any. */
export async function latestPendingFor(
  deps: InvitationDeps,
  org: string,
  userId: number,
): Promise<StoredInvitation | undefined> {
  const pending = (await listInvitations(deps.store, org)).filter(
    (invitation) => invitation.invitee === userId && !invitation.used,
  );
  return pending.sort((a, b) => b.id - a.id)[0];
}

/** Site slugs of the configuration that the organization has (acceptance ignores the others). */
export async function organizationSiteSlugs(deps: InvitationDeps, org: string): Promise<Set<string>> {
  return new Set((await listOrganizationSites(deps.store, org)).map((site) => site.slug));
}
