import { linkedPage, type PageContext, type PageRequest } from '../api/pagination';
import type { SecretType, StoredSecret, Tag } from './model';

/** A secret type as clients see it (no internal counters). */
export function typeView(type: SecretType) {
  return {
    type: type.type,
    name: type.name,
    slug: type.slug,
    description: type.description,
    sensitivity_level: type.sensitivity_level,
    schema: type.schema,
    created_at: type.created_at,
    modified_at: type.modified_at,
  };
}

/** A secret as clients see it: `secret_type` is the type's name. */
export function secretView(secret: StoredSecret, value: unknown) {
  return { key: secret.key, tags: secret.tags, secret_type: secret.type_name, value };
}

export function tagView(tag: Tag) {
  return { name: tag.name, slug: tag.slug, description: tag.description, color: tag.color };
}

/** The `{message, detail}` body of an action. */
export const action = (message: string, detail: string) => ({ message, detail });

/** The `{items, count, next, previous}` page of the secret store's lists. */
export function itemsPage<T>(ctx: PageContext<PageRequest>, all: readonly T[]) {
  const { results, ...links } = linkedPage(ctx, all);
  return { items: results, ...links };
}
