import { iso } from '../clock';
import { queryAll } from '../store/store';
import { createUnique, onConditionFailure, putNew, type TransactItem, transact } from '../store/writes';
import { secretErrors } from './errors';
import { secretKeys } from './keys';
import { defaultTagColor, nameSlug, type Tag } from './model';
import { getItem, type SecretsDeps, sweepSecrets } from './store-helpers';

export interface TagFields {
  name?: string | undefined;
  description?: string | undefined;
  color?: string | undefined;
}

/** Every tag of a site, by name. */
export async function listTags(deps: SecretsDeps, site: string): Promise<Tag[]> {
  const tags = await queryAll<Tag>(deps.store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': secretKeys.tags(site), ':prefix': secretKeys.tagPrefix },
  });
  return tags.sort((a, b) => a.name.localeCompare(b.name));
}

export async function tagOf(deps: SecretsDeps, site: string, slug: string): Promise<Tag> {
  const found = await getItem<Tag>(deps.store, secretKeys.tag(site, slug));
  if (!found) throw secretErrors.tagNotFound(slug);
  return found;
}

/** Creates a tag: unique name (case-insensitively), slug from the name, grey unless a colour is given. */
export async function createTag(
  deps: SecretsDeps,
  site: string,
  input: TagFields & { name: string },
): Promise<Tag> {
  const now = iso(deps.clock());
  const slug = nameSlug(input.name);
  const tag: Tag = {
    site,
    name: input.name,
    slug,
    description: input.description ?? '',
    color: input.color ?? defaultTagColor,
    created_at: now,
    modified_at: now,
  };
  await createUnique(
    deps.store,
    [
      { item: { ...secretKeys.tagName(site, slug), tag_slug: slug } },
      { item: { ...secretKeys.tag(site, slug), ...tag } },
    ],
    { otherwise: () => secretErrors.tagNameTaken(input.name) },
  );
  return tag;
}

/** Changes a tag (PUT and PATCH); a new name is carried to the secrets that have the tag. */
export async function updateTag(
  deps: SecretsDeps,
  site: string,
  slug: string,
  changes: TagFields,
): Promise<Tag> {
  const tag = await tagOf(deps, site, slug);
  const updated: Tag = {
    ...tag,
    name: changes.name ?? tag.name,
    description: changes.description ?? tag.description,
    color: changes.color ?? tag.color,
    modified_at: iso(deps.clock()),
  };
  const table = deps.store.table;
  const items: TransactItem[] = [
    {
      Put: {
        TableName: table,
        Item: { ...secretKeys.tag(site, slug), ...updated },
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
  ];
  if (nameSlug(updated.name) !== nameSlug(tag.name)) {
    items.push(putNew(table, { ...secretKeys.tagName(site, nameSlug(updated.name)), tag_slug: slug }));
    items.push({ Delete: { TableName: table, Key: secretKeys.tagName(site, nameSlug(tag.name)) } });
  }
  await onConditionFailure(transact(deps.store, items), (failed) => {
    throw failed.includes(1) ? secretErrors.tagNameTaken(updated.name) : secretErrors.tagNotFound(slug);
  });
  if (updated.name !== tag.name) {
    await sweepSecrets(
      deps.store,
      site,
      (secret) => secret.tag_slugs.includes(slug),
      (secret) => ({
        tags: secret.tag_slugs.map((s, i) => (s === slug ? updated.name : (secret.tags[i] ?? s))),
      }),
    );
  }
  return updated;
}

/** Deletes a tag and takes it off every secret; the secrets are otherwise unchanged. */
export async function deleteTag(deps: SecretsDeps, site: string, slug: string): Promise<Tag> {
  const tag = await tagOf(deps, site, slug);
  await transact(deps.store, [
    { Delete: { TableName: deps.store.table, Key: secretKeys.tag(site, slug) } },
    { Delete: { TableName: deps.store.table, Key: secretKeys.tagName(site, nameSlug(tag.name)) } },
  ]);
  await sweepSecrets(
    deps.store,
    site,
    (secret) => secret.tag_slugs.includes(slug),
    (secret) => {
      const keep = secret.tag_slugs
        .map((s, i) => [s, secret.tags[i] ?? s] as const)
        .filter(([s]) => s !== slug);
      return { tag_slugs: keep.map(([s]) => s), tags: keep.map(([, name]) => name) };
    },
  );
  return tag;
}

/** The tags named (by name or slug) on a secret write: each must exist (400 naming `tags` otherwise). */
export async function resolveTags(deps: SecretsDeps, site: string, named: readonly string[]): Promise<Tag[]> {
  if (named.length === 0) return [];
  const all = await listTags(deps, site);
  const bySlug = new Map(all.map((tag) => [tag.slug, tag]));
  const found: Tag[] = [];
  const missing: string[] = [];
  for (const name of new Set(named)) {
    const tag = bySlug.get(nameSlug(name)) ?? all.find((candidate) => candidate.name === name);
    if (tag) {
      if (!found.includes(tag)) found.push(tag);
    } else missing.push(name);
  }
  if (missing.length > 0) throw secretErrors.field('tags', `Unknown tags: ${missing.join(', ')}.`);
  return found;
}
