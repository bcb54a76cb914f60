import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, type Store, strip } from '../store/store';
import { roleKeys } from './keys';
import type { StoredAppRole, StoredRole, StoredSiteRole } from './model';

const byName = (a: { name: string; slug: string }, b: { name: string; slug: string }) =>
  a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug);

/**
 * Every role of one site, read at once, with the hierarchy and bundle questions answered in memory. The catalog is
 * one partition per site (bounded by the tenant's role vocabulary), read with strong consistency, so hierarchy
 * decisions (cycles, cascades, inheritance) never act on a stale index.
 */
export class RoleCatalog {
  private readonly bySlug = new Map<string, StoredRole>();
  private readonly childrenOf = new Map<string, StoredAppRole[]>();

  constructor(roles: readonly StoredRole[]) {
    for (const role of roles) this.bySlug.set(role.slug, role);
    for (const role of roles) {
      if (role.kind !== 'app_role') continue;
      const parent = this.parentOf(role);
      if (!parent) continue;
      const siblings = this.childrenOf.get(parent.slug) ?? [];
      siblings.push(role);
      this.childrenOf.set(parent.slug, siblings);
    }
    for (const siblings of this.childrenOf.values()) siblings.sort(byName);
  }

  /** The role a slug names, of either kind: the slug alone decides the kind. */
  get(slug: string): StoredRole | undefined {
    return this.bySlug.get(slug);
  }

  appRole(slug: string): StoredAppRole | undefined {
    const role = this.bySlug.get(slug);
    return role?.kind === 'app_role' ? role : undefined;
  }

  appRoles(app: string): StoredAppRole[] {
    return [...this.bySlug.values()].filter(
      (role): role is StoredAppRole => role.kind === 'app_role' && role.app_slug === app,
    );
  }

  siteRoles(): StoredSiteRole[] {
    return [...this.bySlug.values()].filter((role): role is StoredSiteRole => role.kind === 'site_role');
  }

  /** The parent of an application role; undefined for a root role (or a parent that no longer exists). */
  parentOf(role: StoredAppRole): StoredAppRole | undefined {
    if (role.parent_slug === null) return undefined;
    const parent = this.appRole(role.parent_slug);
    return parent && parent.id === role.parent_id && parent.app_slug === role.app_slug ? parent : undefined;
  }

  children(slug: string): StoredAppRole[] {
    return this.childrenOf.get(slug) ?? [];
  }

  isParent(slug: string): boolean {
    return this.children(slug).length > 0;
  }

  /** Every role above, nearest first. */
  ancestors(slug: string): StoredAppRole[] {
    const found: StoredAppRole[] = [];
    const seen = new Set([slug]);
    const start = this.appRole(slug);
    let parent = start ? this.parentOf(start) : undefined;
    while (parent && !seen.has(parent.slug)) {
      found.push(parent);
      seen.add(parent.slug);
      parent = this.parentOf(parent);
    }
    return found;
  }

  /** Every role below, level by level (children first), by name within a level. */
  descendants(slug: string): StoredAppRole[] {
    const found: StoredAppRole[] = [];
    const seen = new Set([slug]);
    let level = this.children(slug);
    while (level.length > 0) {
      const next: StoredAppRole[] = [];
      for (const role of level) {
        if (seen.has(role.slug)) continue;
        seen.add(role.slug);
        found.push(role);
        next.push(...this.children(role.slug));
      }
      level = next;
    }
    return found;
  }

  /** Whether `parent` may become the parent of `slug`: not the role itself nor one of its descendants. */
  wouldCycle(slug: string, parent: string): boolean {
    return parent === slug || this.descendants(slug).some((role) => role.slug === parent);
  }

  /** The application roles a site role bundles that still exist (a deleted role's slug may have been reused). */
  bundled(siteRole: StoredSiteRole): StoredAppRole[] {
    return siteRole.bundle.flatMap((entry) => {
      const role = this.appRole(entry.slug);
      return role && role.id === entry.id ? [role] : [];
    });
  }

  /** The site roles that bundle any of these application roles. */
  bundling(slugs: ReadonlySet<string>): StoredSiteRole[] {
    return this.siteRoles().filter((siteRole) => this.bundled(siteRole).some((role) => slugs.has(role.slug)));
  }

  /**
   * The roles a user effectively holds, given the slugs of the roles it holds directly (active memberships only).
   * Inheritance runs downwards: a site role grants its bundled roles, and an application role grants every role
   * below it in the hierarchy.
   */
  effective(direct: Iterable<string>): Set<string> {
    const held = new Set<string>();
    const grant = (role: StoredAppRole) => {
      held.add(role.slug);
      for (const below of this.descendants(role.slug)) held.add(below.slug);
    };
    for (const slug of direct) {
      const role = this.get(slug);
      if (!role) continue;
      held.add(role.slug);
      if (role.kind === 'app_role') grant(role);
      else for (const bundled of this.bundled(role)) grant(bundled);
    }
    return held;
  }

  /**
   * The roles whose direct holding grants `slug`: the role itself, its ancestors, and the site roles that bundle
   * any of them. Empty when the slug names no role.
   */
  grantors(slug: string): StoredRole[] {
    const role = this.get(slug);
    if (!role) return [];
    if (role.kind === 'site_role') return [role];
    const line = [role, ...this.ancestors(slug)];
    return [...line, ...this.bundling(new Set(line.map((item) => item.slug)))];
  }
}

/** Reads the role catalog of a site (strongly consistent). */
export async function loadCatalog(store: Store, site: string): Promise<RoleCatalog> {
  const roles = await queryAll<StoredRole>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': roleKeys.catalog(site), ':prefix': roleKeys.rolePrefix },
    ConsistentRead: true,
  });
  return new RoleCatalog(roles);
}

/**
 * One role by slug, of either kind: a single GetItem, because both kinds share the catalog's key space and the item
 * carries its kind.
 */
export async function getRole(store: Store, site: string, slug: string): Promise<StoredRole | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: roleKeys.role(site, slug), ConsistentRead: true }),
  );
  return result.Item ? strip<StoredRole>(result.Item) : undefined;
}
