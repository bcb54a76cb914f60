import { matches, sortBy } from '../api/listing';
import type { SecretType, StoredSecret } from './model';
import { nameSlug } from './model';

export interface TypeFilter {
  search?: string | undefined;
  type?: string | undefined;
  sensitivity_level?: string | undefined;
  ordering: string;
}

/** Types matching the list's filters, in its order (name as the tie-breaker). */
export function filterTypes(types: readonly SecretType[], filter: TypeFilter): SecretType[] {
  const chosen = types.filter(
    (type) =>
      matches(filter.search, type.name, type.description) &&
      (filter.type === undefined || type.type === filter.type) &&
      (filter.sensitivity_level === undefined || type.sensitivity_level === filter.sensitivity_level),
  );
  return sortBy(
    chosen,
    filter.ordering,
    {
      name: (type) => type.name,
      type: (type) => type.type,
      sensitivity_level: (type) => type.sensitivity_level,
      created_at: (type) => type.created_at,
      modified_at: (type) => type.modified_at,
    },
    (type) => type.slug,
  );
}

export interface SecretFilter {
  search?: string | undefined;
  key?: string | undefined;
  app?: string | undefined;
  tags?: string | undefined;
  secret_type?: string | undefined;
  created_by?: string | undefined;
  ordering: string;
}

/** The comma-separated tags of a query, as slugs. */
export function tagList(tags: string | undefined): string[] {
  return (tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** Secrets matching the list's filters (tags: any of them), in its order (key and level as tie-breakers). */
export function filterSecrets(secrets: readonly StoredSecret[], filter: SecretFilter): StoredSecret[] {
  const tags = new Set(tagList(filter.tags).map(nameSlug));
  const chosen = secrets.filter(
    (secret) =>
      matches(filter.search, secret.key) &&
      (filter.key === undefined || secret.key === filter.key) &&
      (filter.app === undefined || secret.app === filter.app) &&
      (tags.size === 0 || secret.tag_slugs.some((slug) => tags.has(slug))) &&
      (filter.secret_type === undefined || secret.type_slug === filter.secret_type) &&
      (filter.created_by === undefined ||
        secret.created_by.toLowerCase() === filter.created_by.toLowerCase()),
  );
  return sortBy(
    chosen,
    filter.ordering,
    {
      key: (secret) => secret.key,
      created_at: (secret) => secret.created_at,
      modified_at: (secret) => secret.modified_at,
      type__name: (secret) => secret.type_name,
      created_by__username: (secret) => secret.created_by,
    },
    (secret) => `${secret.key}\u0000${secret.app ?? ''}`,
  );
}
