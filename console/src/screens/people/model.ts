import { useQuery } from '@tanstack/react-query';
import { answerOf, clientFor } from '../../queries/client';

/**
 * An organization's people: its members and their roles, its groups and their members, the members' permissions
 * on each site, and its invitations (changes for owners and admins only).
 */
export interface Invitation {
  uuid: string;
  invitee_identifier: string;
  created: string;
  config: { group: string[]; site: { slug: string; permissions: string[] }[] };
  status?: string;
  accepted?: boolean;
  [key: string]: unknown;
}

export interface Group {
  slug: string;
  name: string;
}

export interface GroupMember {
  user_id: number;
  user: { username: string; first_name: string; last_name: string };
}

export function useSites(org: string) {
  return useQuery({
    queryKey: ['sites', org],
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/organizations/{org_slug}/sites/', {
          params: { path: { org_slug: org }, query: { page_size: 100 } },
        }),
      ),
  });
}

export interface Grant {
  user_id: number;
  permissions: string[];
}
