import { useQuery } from '@tanstack/react-query';
import { answerOf, clientFor } from '../../queries/client';

/**
 * A site's secrets: keys, types and tags; a value is shown only when revealed (a read of that one secret), the
 * history without values (paged), a form that sets a secret of a type (for who may change the site), a secret's
 * tags, deleting a secret, and the site's secret types and tags.
 */
export interface Secret {
  key: string;
  tags: string[];
  secret_type: string;
  value: unknown;
}

export type Sensitivity = 'public' | 'private' | 'sensitive';

export interface SecretType {
  name: string;
  slug: string;
  type: string;
  description?: string;
  sensitivity_level: Sensitivity;
  schema?: unknown;
}

export interface Tag {
  name: string;
  slug: string;
  description?: string;
  color: string;
}

/** History entries a page. */
export const historyPage = 50;

export interface HistoryEntry {
  action: '+' | '~' | '-';
  user: string;
  timestamp: string;
  secret_type: string;
  tags: string[];
  changes: Record<string, unknown>;
}

export const actions = { '+': 'created', '~': 'changed', '-': 'deleted' } as const;

export function useTags(site: string) {
  return useQuery({ queryKey: ['tags', site], queryFn: () => answerOf(clientFor(site).GET('/api/tags/')) });
}

export function useSecretTypes(site: string) {
  return useQuery({
    queryKey: ['secret-types', site],
    queryFn: () =>
      answerOf(clientFor(site).GET('/api/secret-types/', { params: { query: { page_size: 100 } } })),
  });
}
