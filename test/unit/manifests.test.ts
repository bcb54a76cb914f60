import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groups, routes, routesOf } from '../../functions/groups';
import { registry } from '../../functions/registry';
import { defineGroup } from '../../shared/api/group';
import type { GroupName, RouteDef } from '../../shared/api/route';
import { authRoutes } from '../../shared/auth/routes';

/**
 * An endpoint group is declared once, in its manifest (functions/<group>/manifest.ts): the route table, the Lambda
 * entries, the local server and the CDK stack all read it, and a route's own `group` agrees with the manifest that
 * lists it.
 */
const names = Object.keys(groups) as GroupName[];

describe('the group manifests', () => {
  it('list every route of the route table exactly once, each in the manifest of the group the route names', () => {
    const listedBy = new Map<RouteDef, GroupName[]>();
    for (const name of names) {
      for (const route of groups[name].routes) listedBy.set(route, [...(listedBy.get(route) ?? []), name]);
    }
    for (const route of routes) expect(listedBy.get(route), route.operationId).toEqual([route.group]);
    expect([...listedBy.keys()]).toHaveLength(routes.length);
    expect(new Set(routes.map((route) => route.operationId)).size).toBe(routes.length);
    for (const name of names) expect(routesOf(name)).toEqual(routes.filter((route) => route.group === name));
  });

  it('sit each under its own name, and the local server serves each with its operations', () => {
    for (const name of names) {
      expect(groups[name].name).toBe(name);
      expect(registry[name].manifest).toBe(groups[name]);
      for (const route of groups[name].routes)
        expect(registry[name].operations[route.operationId], route.operationId).toBeTypeOf('function');
    }
  });

  it('refuse a route that names another group, and a route listed twice', () => {
    const [login] = authRoutes;
    const base = { description: 'x', envelope: 'detail', needs: { table: [] } } as const;
    expect(() => defineGroup({ ...base, name: 'roles', routes: [login] })).toThrow(
      `Route ${login.operationId} names group auth, but is listed by roles`,
    );
    expect(() => defineGroup({ ...base, name: 'auth', routes: [login, login] })).toThrow(
      `Group auth lists ${login.operationId} twice`,
    );
  });

  it("are what each group's Lambda entry serves: its own manifest, and no other group's", () => {
    for (const name of names) {
      const entry = readFileSync(`functions/${name}/handler.ts`, 'utf8');
      expect(entry, name).toContain("from './manifest';");
      expect(entry, name).not.toMatch(/from '\.\.\/groups'|from '\.\.\/[a-z]+\/manifest'/);
      expect(entry, name).not.toMatch(/shared\/[a-z]+\/routes'/);
    }
  });

  it('leave infra/ no case of its own for a named group', () => {
    const infra = readdirSync('infra').filter((file) => file.endsWith('.ts'));
    for (const file of infra) {
      const text = readFileSync(`infra/${file}`, 'utf8');
      for (const name of names) {
        expect(text, `infra/${file}`).not.toMatch(new RegExp(`(===|!==)\\s*'${name}'`));
        expect(text, `infra/${file}`).not.toMatch(new RegExp(`'${name}'\\s*(===|!==)`));
      }
    }
  });
});
