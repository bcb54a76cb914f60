import { describe, expect, it } from 'vitest';
import { RoleCatalog } from '../../shared/roles/catalog';
import type { StoredAppRole, StoredSiteRole } from '../../shared/roles/model';

let nextId = 1;
const at = '2030-01-01T00:00:00.000Z';

function appRole(slug: string, parent?: StoredAppRole, app = 'shop'): StoredAppRole {
  return {
    kind: 'app_role',
    id: nextId++,
    site: 'acme',
    slug,
    name: slug,
    description: '',
    app_id: 1,
    app_slug: app,
    parent_slug: parent?.slug ?? null,
    parent_id: parent?.id ?? null,
    created_at: at,
    updated_at: at,
    version: 1,
  };
}

function siteRole(slug: string, bundle: StoredAppRole[]): StoredSiteRole {
  return {
    kind: 'site_role',
    id: nextId++,
    site: 'acme',
    slug,
    name: slug,
    description: '',
    bundle: bundle.map((role) => ({ slug: role.slug, id: role.id })),
    created_at: at,
    updated_at: at,
    version: 1,
  };
}

/** top > (mid > (leaf-b, leaf-a), side); lone; team bundles mid. */
function sample() {
  const top = appRole('top');
  const mid = appRole('mid', top);
  const leafB = appRole('leaf-b', mid);
  const leafA = appRole('leaf-a', mid);
  const side = appRole('side', top);
  const lone = appRole('lone');
  const team = siteRole('team', [mid]);
  return {
    top,
    mid,
    leafA,
    leafB,
    side,
    lone,
    team,
    catalog: new RoleCatalog([top, mid, leafB, leafA, side, lone, team]),
  };
}

const slugs = (roles: { slug: string }[]) => roles.map((role) => role.slug);

describe('RoleCatalog', () => {
  it('tells the kind of a role from its slug alone', () => {
    const { catalog } = sample();
    expect(catalog.get('mid')?.kind).toBe('app_role');
    expect(catalog.get('team')?.kind).toBe('site_role');
    expect(catalog.appRole('team')).toBeUndefined();
    expect(catalog.get('ghost')).toBeUndefined();
  });

  it('returns the ancestors nearest first', () => {
    expect(slugs(sample().catalog.ancestors('leaf-a'))).toEqual(['mid', 'top']);
  });

  it('returns the descendants level by level, by name within a level', () => {
    expect(slugs(sample().catalog.descendants('top'))).toEqual(['mid', 'side', 'leaf-a', 'leaf-b']);
  });

  it('knows which roles are parents', () => {
    const { catalog } = sample();
    expect(catalog.isParent('mid')).toBe(true);
    expect(catalog.isParent('leaf-a')).toBe(false);
  });

  it('refuses a parent that is the role itself or below it', () => {
    const { catalog } = sample();
    expect(catalog.wouldCycle('top', 'top')).toBe(true);
    expect(catalog.wouldCycle('top', 'leaf-a')).toBe(true);
    expect(catalog.wouldCycle('mid', 'side')).toBe(false);
    expect(catalog.wouldCycle('leaf-a', 'top')).toBe(false);
  });

  it('treats a role whose parent is gone, or was replaced under the same slug, as a root role', () => {
    const parent = appRole('gone');
    const orphan = appRole('orphan', parent);
    const impostor = { ...appRole('gone'), id: parent.id + 1000 };
    const catalog = new RoleCatalog([orphan, impostor]);
    expect(catalog.parentOf(orphan)).toBeUndefined();
    expect(catalog.ancestors('orphan')).toEqual([]);
    expect(catalog.isParent('gone')).toBe(false);
  });

  it('ignores a parent in another app', () => {
    const foreign = appRole('foreign', undefined, 'billing');
    const child = appRole('child', foreign);
    expect(new RoleCatalog([foreign, child]).parentOf(child)).toBeUndefined();
  });

  it('stops at a cycle in stored data instead of looping', () => {
    const a = appRole('a');
    const b = appRole('b', a);
    const looped = { ...a, parent_slug: b.slug, parent_id: b.id };
    const catalog = new RoleCatalog([looped, b]);
    expect(slugs(catalog.ancestors('a'))).toEqual(['b']);
    expect(slugs(catalog.descendants('a'))).toEqual(['b']);
  });

  it('bundles only application roles that still exist with the same id', () => {
    const { catalog, team, mid } = sample();
    expect(slugs(catalog.bundled(team))).toEqual(['mid']);
    const replaced = new RoleCatalog([{ ...mid, id: mid.id + 1000 }, team]);
    expect(replaced.bundled(team)).toEqual([]);
  });

  describe('effective', () => {
    it('grants a held role and every role below it, downwards only', () => {
      expect([...sample().catalog.effective(['mid'])].sort()).toEqual(['leaf-a', 'leaf-b', 'mid']);
    });

    it('grants a site role, its bundled roles and the roles below them', () => {
      expect([...sample().catalog.effective(['team'])].sort()).toEqual(['leaf-a', 'leaf-b', 'mid', 'team']);
    });

    it('ignores slugs that name no role', () => {
      expect([...sample().catalog.effective(['ghost'])]).toEqual([]);
    });
  });

  describe('grantors', () => {
    it('names the role, its ancestors and the site roles bundling any of them', () => {
      expect(slugs(sample().catalog.grantors('leaf-a'))).toEqual(['leaf-a', 'mid', 'top', 'team']);
    });

    it('names only the site role itself for a site role', () => {
      expect(slugs(sample().catalog.grantors('team'))).toEqual(['team']);
    });

    it('is empty for an unknown slug', () => {
      expect(sample().catalog.grantors('ghost')).toEqual([]);
    });

    it('agrees with effective: a role is granted exactly by its grantors', () => {
      const { catalog } = sample();
      const all = ['top', 'mid', 'leaf-a', 'leaf-b', 'side', 'lone', 'team'];
      for (const held of all) {
        for (const target of all) {
          const byGrantors = slugs(catalog.grantors(target)).includes(held);
          expect(catalog.effective([held]).has(target), `${held} → ${target}`).toBe(byGrantors);
        }
      }
    });
  });
});
