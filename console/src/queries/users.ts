import { useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, clientFor } from './client';

/**
 * The platform's accounts, for superusers (the Users screen): the API's search, creation, deactivation, reset
 * links and an account's organizations. The API decides who may (superusers): this module only asks.
 */
export const usersPageSize = 20;

export function useUsers(search: string, page: number) {
  return useQuery({
    queryKey: ['users', search, page],
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/users/', {
          params: { query: { search: search || undefined, page, page_size: usersPageSize } },
        }),
      ),
  });
}

export type User = NonNullable<ReturnType<typeof useUsers>['data']>['results'][number];

export function useUserOrganizations(userId: number) {
  return useQuery({
    queryKey: ['user-organizations', userId],
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/users/{user_id}/organizations/', {
          params: { path: { user_id: userId }, query: { page_size: 100 } },
        }),
      ),
  });
}

/** A password nobody knows (24 random bytes): a new account's until its person chooses one by the reset link. */
function unknownPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(
    /[+/=]/g,
    (c) => ({ '+': '-', '/': '_', '=': '' })[c] ?? '',
  );
}

export interface NewUser {
  email: string;
  username: string;
  first_name: string;
  last_name: string;
}

/** The Users screen's writes; each refreshes the list. */
export function useUserActions() {
  const queries = useQueryClient();
  const refresh = () => queries.invalidateQueries({ queryKey: ['users'] });
  const sendReset = async (userId: number) =>
    (
      await answerOf(
        clientFor().POST('/api/cloud/users/{user_id}/password-reset/', {
          params: { path: { user_id: userId } },
        }),
      )
    ).detail;
  return {
    sendReset,
    /** Creates the account with a password no one knows, then e-mails the person a link to choose theirs. */
    async create(fields: NewUser): Promise<string> {
      const user = await answerOf(
        clientFor().POST('/api/cloud/users/', {
          body: { ...fields, username: fields.username || undefined, password: unknownPassword() },
        }),
      );
      await refresh();
      return `${user.username} was created. ${await sendReset(user.id)}`;
    },
    async setActive(user: User, active: boolean): Promise<string> {
      await answerOf(
        clientFor().PATCH('/api/cloud/users/{user_id}/', {
          params: { path: { user_id: user.id } },
          body: { is_active: active },
        }),
      );
      await refresh();
      return active
        ? `${user.username} was activated.`
        : `${user.username} was deactivated: they can no longer sign in.`;
    },
  };
}
