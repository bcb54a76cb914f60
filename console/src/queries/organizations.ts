import { useQuery } from '@tanstack/react-query';
import { ApiError, answerOf, clientFor } from './client';

/** The signed-in person (refine's identity: `GET /api/cloud/users/me/`). */
export interface Identity {
  id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_superuser: boolean;
}
export interface Named {
  slug: string;
  name: string;
}
export interface Member {
  user_id: number;
  role: 'owner' | 'admin' | 'member';
  user: { id: number; username: string; first_name: string; last_name: string; email?: string };
  groups: { slug: string; name: string }[];
}

export type SiteAction =
  | 'administer'
  | 'configure'
  | 'manage_users'
  | 'change'
  | 'delete'
  | 'view'
  | 'access';

/**
 * What the signed-in person may do here, as the API tells it: the organization role (members list) and, on a
 * site, the site actions the API's policy grants them (`GET /api/cloud/users/me/site-permissions/`).
 */
export interface Abilities {
  /** Organization owner or admin, or a superuser: invitations, groups, roles of members, site permissions. */
  orgAdmin: boolean;
  /** The organization's owner or a superuser. */
  orgOwner: boolean;
  /** A superuser: adds any account to an organization, or creates one there. */
  superuser: boolean;
  /** Every write of a site's content and configuration at once (configure, change and delete). */
  siteWrite: boolean;
  /** One site action (docs/authorization.md) on the chosen site. */
  can: (action: SiteAction) => boolean;
  /** Social app writes (superusers and the organization's owner). */
  socialAppWrites: boolean;
  /** The caller's own grants on the chosen site. */
  sitePermissions: string[];
}

export function useOrganization(org: string | undefined) {
  return useQuery({
    queryKey: ['org', org],
    enabled: Boolean(org),
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/organizations/{org_slug}/', {
          params: { path: { org_slug: org ?? '' } },
        }),
      ),
  });
}

export function useMembers(org: string | undefined) {
  return useQuery({
    queryKey: ['members', org],
    enabled: Boolean(org),
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/organizations/{org_slug}/members/', {
          params: {
            path: { org_slug: org ?? '' },
            query: {
              page_size: 100,
            },
          },
        }),
      ),
  });
}

/** The caller's own actions on a site; a 403 (no grant on the site) is "nothing", not an error. */
function useOwnSitePermissions(site: string | undefined) {
  return useQuery({
    queryKey: ['own-site-permissions', site],
    enabled: Boolean(site),
    queryFn: async () => {
      try {
        return await answerOf(clientFor(site).GET('/api/cloud/users/me/site-permissions/'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) return null;
        throw error;
      }
    },
  });
}

export function useAbilities(
  org: string | undefined,
  site: string | undefined,
  me: Identity | undefined,
): Abilities | undefined {
  const members = useMembers(org);
  const own = useOwnSitePermissions(site);
  if (!me) return undefined;
  let role: Member['role'] | undefined;
  if (!me.is_superuser) {
    if (!members.data) return undefined;
    role = members.data.results.find((member) => member.user_id === me.id)?.role;
  }
  const admin = me.is_superuser || role === 'owner' || role === 'admin';
  const owner = me.is_superuser || role === 'owner';
  if (site && own.isLoading) return undefined;
  const actions = new Set<SiteAction>(site ? (own.data?.actions ?? []) : admin ? ['view', 'access'] : []);
  const can = (action: SiteAction) => actions.has(action);
  return {
    orgAdmin: admin,
    orgOwner: owner,
    superuser: me.is_superuser,
    siteWrite: can('configure') && can('change') && can('delete'),
    can,
    socialAppWrites: site ? (own.data?.social_app_writes ?? false) : owner,
    sitePermissions: own.data?.permissions ?? [],
  };
}
