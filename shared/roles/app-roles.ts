import type { App } from '../accounts/model';
import { iso } from '../clock';
import { slugify } from '../slug';
import { chunks, transactionLimit } from '../store/batch';
import { nextId } from '../store/store';
import { onConditionFailure, putNew, type TransactItem, transact } from '../store/writes';
import { loadCatalog, type RoleCatalog } from './catalog';
import { cleanUp, finishPending, tombstone } from './cleanup';
import { optimistic, StaleCatalog, versionCheck, versionedUpdate } from './concurrency';
import { roleErrors } from './errors';
import { roleKeys } from './keys';
import type { RolesDeps } from './memberships';
import { describeRole, type StoredAppRole, type StoredRole } from './model';
import { pruneBundles } from './site-roles';

export interface NewAppRole {
  name: string;
  description?: string | undefined;
  /** Omitted, null or empty: a root role. */
  parent_role_slug?: string | null | undefined;
}

export interface AppRoleChanges {
  description?: string | undefined;
  /** Empty string: move to the root; null or omitted: keep the parent. */
  parent_role_slug?: string | null | undefined;
}

/** The slug of an application role: `{app-slug}-{role-name-slug}`. */
export function appRoleSlug(app: App, name: string): string {
  const nameSlug = slugify(name);
  if (!nameSlug) throw roleErrors.invalidName();
  return `${app.slug}-${nameSlug}`;
}

/** The 409 for a slug that is taken: the same name in the app, or another role whose slug happens to match. */
function slugConflict(existing: StoredRole, app: App) {
  return existing.kind === 'app_role' && existing.app_slug === app.slug
    ? roleErrors.roleExists(existing.name, app.slug)
    : roleErrors.slugTaken(existing.slug, describeRole(existing));
}

/** An application role of this app; 404 otherwise (including a site role's slug or another app's role). */
export function appRoleOf(catalog: RoleCatalog, app: App, slug: string): StoredAppRole {
  const role = catalog.appRole(slug);
  if (!role || role.app_slug !== app.slug) throw roleErrors.roleNotFound([slug]);
  return role;
}

function parentIn(catalog: RoleCatalog, app: App, slug: string): StoredAppRole {
  const parent = catalog.appRole(slug);
  if (!parent || parent.app_slug !== app.slug) throw roleErrors.parentNotFound(slug, app.slug);
  return parent;
}

/** An update that only bumps a role's version: its children changed, or it must not change meanwhile. */
function bump(table: string, site: string, role: StoredRole) {
  return {
    Update: versionedUpdate(table, { ...role, site }, 'SET #version = #version + :one', { ':one': 1 }),
  };
}

function unchanged(table: string, site: string, role: StoredRole) {
  return {
    ConditionCheck: { TableName: table, Key: roleKeys.role(site, role.slug), ...versionCheck(role.version) },
  };
}

/**
 * Writes the items in one transaction; a failed condition means the catalog changed since it was read
 * (`StaleCatalog`, which `optimistic` retries on a fresh read).
 */
async function writeOrStale(deps: RolesDeps, items: readonly TransactItem[]): Promise<void> {
  await onConditionFailure(transact(deps.store, items), () => {
    throw new StaleCatalog();
  });
}

/** The role's new description, parent and version, on condition of the version it was read at. */
function roleUpdate(table: string, role: StoredAppRole, updated: StoredAppRole) {
  return {
    Update: versionedUpdate(
      table,
      role,
      'SET description = :description, parent_slug = :parent, parent_id = :parentId, updated_at = :now, #version = :next',
      {
        ':description': updated.description,
        ':parent': updated.parent_slug,
        ':parentId': updated.parent_id,
        ':now': updated.updated_at,
        ':next': updated.version,
      },
    ),
  };
}

/** A child of a deleted role moves to the deleted role's parent (the root when there is none). */
function reparent(table: string, child: StoredAppRole, parent: StoredAppRole | undefined, now: string) {
  return {
    Update: versionedUpdate(
      table,
      child,
      'SET parent_slug = :parent, parent_id = :parentId, updated_at = :now, #version = #version + :one',
      { ':parent': parent?.slug ?? null, ':parentId': parent?.id ?? null, ':now': now, ':one': 1 },
    ),
  };
}

/** A role removed, on condition of the version it was read at, and its tombstone (shared/roles/cleanup.ts). */
function removal(table: string, role: StoredAppRole, at: string) {
  return [
    { Delete: { TableName: table, Key: roleKeys.role(role.site, role.slug), ...versionCheck(role.version) } },
    tombstone(table, role.site, role, at),
  ];
}

/**
 * Creates an application role. The slug is unique across every role of the site (both kinds share the catalog's
 * key space), which also makes the name unique within the app; the parent's version is bumped in the same
 * transaction, so a concurrent delete of the parent cannot miss the new child.
 */
export async function createAppRole(deps: RolesDeps, app: App, input: NewAppRole): Promise<StoredAppRole> {
  const name = input.name.trim();
  const slug = appRoleSlug(app, name);
  const site = app.site;
  // Memberships a crashed deletion left go first, so a role that takes the slug again starts with none stored.
  await finishPending(deps, site);
  return optimistic(async () => {
    const catalog = await loadCatalog(deps.store, site);
    const existing = catalog.get(slug);
    if (existing) throw slugConflict(existing, app);
    const parent = input.parent_role_slug ? parentIn(catalog, app, input.parent_role_slug) : undefined;
    const now = iso(deps.clock());
    const role: StoredAppRole = {
      kind: 'app_role',
      id: await nextId(deps.store, 'role'),
      site,
      slug,
      name,
      description: input.description ?? '',
      app_id: app.id,
      app_slug: app.slug,
      parent_slug: parent?.slug ?? null,
      parent_id: parent?.id ?? null,
      created_at: now,
      updated_at: now,
      version: 1,
    };
    const table = deps.store.table;
    await writeOrStale(deps, [
      putNew(table, { ...roleKeys.role(site, slug), ...role }),
      ...(parent ? [bump(table, site, parent)] : []),
    ]);
    return role;
  });
}

/**
 * Changes an application role's description and parent. A new parent must be in the same app and not the role
 * itself or below it (400); the transaction holds the new parent's whole line of ancestors to the versions that
 * were checked, so two concurrent moves cannot close a cycle.
 */
export async function updateAppRole(
  deps: RolesDeps,
  app: App,
  slug: string,
  changes: AppRoleChanges,
): Promise<StoredAppRole> {
  const site = app.site;
  const table = deps.store.table;
  return optimistic(async () => {
    const catalog = await loadCatalog(deps.store, site);
    const role = appRoleOf(catalog, app, slug);
    const current = catalog.parentOf(role);
    const parent = newParent(catalog, app, role, changes.parent_role_slug, current);
    if (changes.description === undefined && parent?.slug === current?.slug) return role;
    const updated: StoredAppRole = {
      ...role,
      description: changes.description ?? role.description,
      parent_slug: parent?.slug ?? null,
      parent_id: parent?.id ?? null,
      updated_at: iso(deps.clock()),
      version: role.version + 1,
    };
    const moved = parent !== undefined && parent.slug !== current?.slug;
    // A moved role's new parent and its whole line of ancestors are held to the versions checked for a cycle.
    const line = moved
      ? [
          bump(table, site, parent),
          ...catalog
            .ancestors(parent.slug)
            .slice(0, transactionLimit - 2)
            .map((ancestor) => unchanged(table, site, ancestor)),
        ]
      : [];
    await writeOrStale(deps, [roleUpdate(table, role, updated), ...line]);
    return updated;
  });
}

/** The parent a change asks for: empty for the root, a slug for a role of the app that would close no cycle. */
function newParent(
  catalog: RoleCatalog,
  app: App,
  role: StoredAppRole,
  requested: string | null | undefined,
  current: StoredAppRole | undefined,
): StoredAppRole | undefined {
  if (requested === '') return undefined;
  if (typeof requested !== 'string') return current;
  const parent = parentIn(catalog, app, requested);
  if (catalog.wouldCycle(role.slug, parent.slug)) throw roleErrors.cycle(role.slug, parent.slug);
  return parent;
}

export interface AppRoleDeletion {
  /** Every role deleted: the role and, when cascading, its descendants. */
  deleted: StoredAppRole[];
  /** Children moved to the deleted role's parent (when not cascading). */
  moved: StoredAppRole[];
  /** The parent the children moved to; undefined when they became root roles. */
  parent: StoredAppRole | undefined;
}

/**
 * Deletes an application role. With `removeChildren`, every descendant goes too, deepest first, so that what
 * remains after any step is a valid tree; without it, the children move to the deleted role's parent (or the root)
 * before the role goes. Each deleted role leaves a tombstone in its transaction; its memberships are removed after
 * (shared/roles/cleanup.ts), and site roles stop bundling it.
 */
export async function deleteAppRole(
  deps: RolesDeps,
  app: App,
  slug: string,
  removeChildren: boolean,
): Promise<AppRoleDeletion> {
  const site = app.site;
  const table = deps.store.table;
  const deleted = new Map<string, StoredAppRole>();
  const moved = new Map<string, StoredAppRole>();
  let parent: StoredAppRole | undefined;
  await finishPending(deps, site);
  const catalog = await optimistic(async () => {
    const catalog = await loadCatalog(deps.store, site);
    // The role itself goes last, so a retry after partial progress still finds it.
    const role = appRoleOf(catalog, app, slug);
    if (removeChildren) {
      // Breadth-first order reversed: the deepest level goes first, the role itself last.
      const doomed = [role, ...catalog.descendants(role.slug)].reverse();
      // Two items per role (the role and its tombstone): 50 roles per transaction.
      for (const chunk of chunks(doomed, transactionLimit / 2)) {
        const now = iso(deps.clock());
        await writeOrStale(
          deps,
          chunk.flatMap((gone) => removal(table, gone, now)),
        );
        for (const gone of chunk) deleted.set(gone.slug, gone);
      }
      return catalog;
    }
    parent = catalog.parentOf(role);
    let parentVersion = parent?.version ?? 0;
    for (const chunk of chunks(catalog.children(role.slug), transactionLimit - 1)) {
      const now = iso(deps.clock());
      await writeOrStale(deps, [
        ...chunk.map((child) => reparent(table, child, parent, now)),
        ...(parent ? [bump(table, site, { ...parent, version: parentVersion })] : []),
      ]);
      parentVersion += 1;
      for (const child of chunk) moved.set(child.slug, child);
    }
    await writeOrStale(deps, removal(table, role, iso(deps.clock())));
    deleted.set(role.slug, role);
    return catalog;
  });
  await cleanUp(deps, site, [...deleted.values()]);
  await pruneBundles(deps, site, catalog, [...deleted.values()]);
  return { deleted: [...deleted.values()], moved: [...moved.values()], parent };
}
