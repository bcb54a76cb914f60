import { iso } from '../clock';
import { NotFoundError } from '../errors';
import { slugify } from '../slug';
import { nextId, uniqueKey } from '../store/store';
import { createUnique, onConditionFailure, putNew, transact, updateAtVersion } from '../store/writes';
import { loadCatalog, type RoleCatalog } from './catalog';
import { cleanUp, finishPending, tombstone } from './cleanup';
import { optimistic, StaleCatalog, versionCheck, versionedUpdate } from './concurrency';
import { roleErrors } from './errors';
import { roleKeys } from './keys';
import type { RolesDeps } from './memberships';
import { type BundledRole, describeRole, type StoredAppRole, type StoredSiteRole } from './model';

export interface NewSiteRole {
  name: string;
  description?: string | undefined;
  role_slugs?: string[] | undefined;
}

export interface SiteRoleChanges {
  name?: string | undefined;
  description?: string | undefined;
  /** Replaces the bundle; omitted keeps it. */
  role_slugs?: string[] | undefined;
}

/** A site role of the catalog; 404 for an unknown slug or an application role's slug. */
export function siteRoleOf(catalog: RoleCatalog, slug: string): StoredSiteRole {
  const role = catalog.get(slug);
  if (role?.kind !== 'site_role') {
    throw new NotFoundError({
      message: `No site role with the slug "${slug}" exists in this site.`,
      code: 'role_not_found',
      title: 'Role not found',
    });
  }
  return role;
}

/** The bundle for these slugs: each must be an application role of the site (400 naming the others). */
function bundleOf(catalog: RoleCatalog, slugs: readonly string[]): BundledRole[] {
  const distinct = [...new Set(slugs)];
  const invalid = distinct.filter((slug) => !catalog.appRole(slug));
  if (invalid.length > 0) throw roleErrors.invalidRoleSlugs(invalid);
  return distinct.map((slug) => ({ slug, id: (catalog.appRole(slug) as StoredAppRole).id }));
}

/**
 * Creates a site role. Its slug comes from the name and shares the catalog's key space with application roles, so
 * the two kinds never collide; the name is unique case-insensitively through a sentinel in the same transaction.
 */
export async function createSiteRole(
  deps: RolesDeps,
  site: string,
  input: NewSiteRole,
): Promise<StoredSiteRole> {
  const name = input.name.trim();
  const slug = slugify(name);
  if (!slug) throw roleErrors.invalidName();
  // Memberships a crashed deletion left go first, so a role that takes the slug again starts with none stored.
  await finishPending(deps, site);
  const catalog = await loadCatalog(deps.store, site);
  const bundle = bundleOf(catalog, input.role_slugs ?? []);
  const now = iso(deps.clock());
  const role: StoredSiteRole = {
    kind: 'site_role',
    id: await nextId(deps.store, 'role'),
    site,
    slug,
    name,
    description: input.description ?? '',
    bundle,
    created_at: now,
    updated_at: now,
    version: 1,
  };
  await createUnique(
    deps.store,
    [
      {
        item: { ...roleKeys.siteRoleName(site, name), role_slug: slug },
        taken: () => roleErrors.siteRoleExists(name),
      },
      { item: { ...roleKeys.role(site, slug), ...role } },
    ],
    {
      otherwise: async () => {
        const holder = (await loadCatalog(deps.store, site)).get(slug);
        return roleErrors.slugTaken(slug, holder ? describeRole(holder) : 'another role');
      },
    },
  );
  return role;
}

/** The role's new name, description, bundle and version, on condition of the version it was read at. */
function siteRoleUpdate(table: string, role: StoredSiteRole, updated: StoredSiteRole) {
  return {
    Update: versionedUpdate(
      table,
      role,
      'SET #name = :name, description = :description, bundle = :bundle, updated_at = :now, #version = :next',
      {
        ':name': updated.name,
        ':description': updated.description,
        ':bundle': updated.bundle,
        ':now': updated.updated_at,
        ':next': updated.version,
      },
      { '#name': 'name' },
    ),
  };
}

/** Renames a site role (its slug stays), changes its description or replaces its bundle. */
export async function updateSiteRole(
  deps: RolesDeps,
  site: string,
  slug: string,
  changes: SiteRoleChanges,
): Promise<StoredSiteRole> {
  const table = deps.store.table;
  return optimistic(async () => {
    const catalog = await loadCatalog(deps.store, site);
    const role = siteRoleOf(catalog, slug);
    const name = changes.name?.trim() ?? role.name;
    if (!slugify(name)) throw roleErrors.invalidName();
    const updated: StoredSiteRole = {
      ...role,
      name,
      description: changes.description ?? role.description,
      bundle: changes.role_slugs
        ? bundleOf(catalog, changes.role_slugs)
        : catalog.bundled(role).map(({ slug, id }) => ({ slug, id })),
      updated_at: iso(deps.clock()),
      version: role.version + 1,
    };
    const renamed = uniqueKey(name) !== uniqueKey(role.name);
    await onConditionFailure(
      transact(deps.store, [
        siteRoleUpdate(table, role, updated),
        ...(renamed
          ? [
              putNew(table, { ...roleKeys.siteRoleName(site, name), role_slug: slug }),
              { Delete: { TableName: table, Key: roleKeys.siteRoleName(site, role.name) } },
            ]
          : []),
      ]),
      (failed) => {
        throw failed.includes(1) ? roleErrors.siteRoleExists(name) : new StaleCatalog();
      },
    );
    return updated;
  });
}

/**
 * Deletes a site role and its name sentinel, with a tombstone in the same transaction; then every membership of it
 * (shared/roles/cleanup.ts: a crash there leaves the tombstone, and the next role write finishes the work).
 */
export async function deleteSiteRole(deps: RolesDeps, site: string, slug: string): Promise<StoredSiteRole> {
  const table = deps.store.table;
  await finishPending(deps, site);
  const role = await optimistic(async () => {
    const role = siteRoleOf(await loadCatalog(deps.store, site), slug);
    await onConditionFailure(
      transact(deps.store, [
        { Delete: { TableName: table, Key: roleKeys.role(site, slug), ...versionCheck(role.version) } },
        { Delete: { TableName: table, Key: roleKeys.siteRoleName(site, role.name) } },
        tombstone(table, site, role, iso(deps.clock())),
      ]),
      () => {
        throw new StaleCatalog();
      },
    );
    return role;
  });
  await cleanUp(deps, site, [role]);
  return role;
}

/**
 * Drops deleted application roles from the site roles that bundle them. Best effort: a site role changed meanwhile
 * is left alone, which is harmless because bundles are read by role id and a deleted role's id never returns.
 */
export async function pruneBundles(
  deps: RolesDeps,
  site: string,
  catalog: RoleCatalog,
  deleted: readonly StoredAppRole[],
): Promise<void> {
  const gone = new Set(deleted.map((role) => role.id));
  for (const siteRole of catalog.siteRoles()) {
    const bundle = siteRole.bundle.filter((entry) => !gone.has(entry.id));
    if (bundle.length === siteRole.bundle.length) continue;
    await updateAtVersion(
      deps.store,
      {
        Key: roleKeys.role(site, siteRole.slug),
        UpdateExpression: 'SET bundle = :bundle, #version = #version + :one',
        ExpressionAttributeValues: { ':bundle': bundle, ':one': 1 },
      },
      siteRole.version,
    );
  }
}

/**
 * Drops from every site role the bundle entries that name no existing application role (its `{slug, id}` gone: the
 * role deleted, or its app). Used by an app's deletion (shared/lifecycle/apps.ts), whose roles go without the
 * roles' own deletion path; also removes what an earlier crash left. A site role changed meanwhile is read again
 * (up to three times): harmless if it still stays, since bundles are read by role id and an id never returns.
 * Returns how many site roles it changed.
 */
export async function pruneStaleBundles(deps: RolesDeps, site: string): Promise<number> {
  let changed = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    const catalog = await loadCatalog(deps.store, site);
    let raced = false;
    for (const siteRole of catalog.siteRoles()) {
      const bundle = siteRole.bundle.filter((entry) => catalog.appRole(entry.slug)?.id === entry.id);
      if (bundle.length === siteRole.bundle.length) continue;
      const done = await updateAtVersion(
        deps.store,
        {
          Key: roleKeys.role(site, siteRole.slug),
          UpdateExpression: 'SET bundle = :bundle, #version = #version + :one',
          ExpressionAttributeValues: { ':bundle': bundle, ':one': 1 },
        },
        siteRole.version,
      );
      if (done) changed++;
      else raced = true;
    }
    if (!raced) break;
  }
  return changed;
}
