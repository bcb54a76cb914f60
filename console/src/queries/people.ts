import type { paths } from '../../../client/src/index';
import { answerOf, clientFor } from './client';

type SetPermissions =
  paths['/api/cloud/organizations/{org_slug}/sites/{site_slug}/permissions/{user_id}/']['put']['requestBody'];
/** A permission a member holds on a site (`view_site`, …), as the API names them. */
export type SitePermission =
  NonNullable<SetPermissions>['content']['application/json']['permissions'][number];

/**
 * An organization's people, typed by the API's OpenAPI document: its groups and their members, the members'
 * permissions on a site, and its invitations. Organization routes carry no site: one client serves them.
 */
const api = () => clientFor();

export function organizationCalls(org: string) {
  const org_slug = org;
  return {
    groups: () =>
      answerOf(
        api().GET('/api/cloud/organizations/{org_slug}/groups/', {
          params: { path: { org_slug }, query: { page_size: 100 } },
        }),
      ),
    createGroup: (name: string) =>
      answerOf(
        api().POST('/api/cloud/organizations/{org_slug}/groups/', {
          params: { path: { org_slug } },
          body: { name },
        }),
      ),
    group: (group_slug: string) => {
      const path = { org_slug, group_slug };
      return {
        rename: (name: string) =>
          answerOf(
            api().PATCH('/api/cloud/organizations/{org_slug}/groups/{group_slug}/', {
              params: { path },
              body: { name },
            }),
          ),
        remove: () =>
          answerOf(
            api().DELETE('/api/cloud/organizations/{org_slug}/groups/{group_slug}/', { params: { path } }),
          ),
        members: () =>
          answerOf(
            api().GET('/api/cloud/organizations/{org_slug}/groups/{group_slug}/members/', {
              params: { path, query: { page_size: 100 } },
            }),
          ),
        add: (user_id: number) =>
          answerOf(
            api().POST('/api/cloud/organizations/{org_slug}/groups/{group_slug}/members/', {
              params: { path },
              body: { user_id },
            }),
          ),
        takeOut: (user_id: number) =>
          answerOf(
            api().DELETE('/api/cloud/organizations/{org_slug}/groups/{group_slug}/members/{user_id}/', {
              params: { path: { ...path, user_id } },
            }),
          ),
      };
    },
    sitePermissions: (site_slug: string) =>
      answerOf(
        api().GET('/api/cloud/organizations/{org_slug}/sites/{site_slug}/permissions/', {
          params: { path: { org_slug, site_slug } },
        }),
      ),
    setSitePermissions: (site_slug: string, user_id: number, permissions: SitePermission[]) =>
      answerOf(
        api().PUT('/api/cloud/organizations/{org_slug}/sites/{site_slug}/permissions/{user_id}/', {
          params: { path: { org_slug, site_slug, user_id } },
          body: { permissions },
        }),
      ),
    /** Pending invitations only: accepted ones cannot be resent or cancelled. */
    pendingInvitations: () =>
      answerOf(
        api().GET('/api/cloud/organizations/{org_slug}/invitations/', {
          params: { path: { org_slug }, query: { page_size: 100, invitee__is_active: false } },
        }),
      ),
    invite: (body: {
      invitee_identifier: string;
      invitation_config?: { group?: string[]; site?: { slug: string; permissions: SitePermission[] }[] };
    }) =>
      answerOf(
        api().POST('/api/cloud/organizations/{org_slug}/invitations/', {
          params: { path: { org_slug } },
          body,
        }),
      ),
    resend: (uuid: string) =>
      answerOf(
        api().POST('/api/cloud/organizations/{org_slug}/invitations/{invitation_id}/resend/', {
          params: { path: { org_slug, invitation_id: uuid } },
        }),
      ),
    cancel: (uuid: string) =>
      answerOf(
        api().DELETE('/api/cloud/organizations/{org_slug}/invitations/{uuid}/', {
          params: { path: { org_slug, uuid } },
        }),
      ),
  };
}
