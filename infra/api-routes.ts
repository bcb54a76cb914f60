import type { GroupName, RouteDef } from '../shared/api/route';

/**
 * The API Gateway routes of the route table. The spec's paths end in "/", HTTP API route keys cannot, and HTTP API
 * does not document that `/x/` reaches the route `/x` (that rule is REST API's), so each group gets `ANY` routes on
 * the shortest path prefixes that only its own routes share, each as the bare prefix plus `<prefix>/{proxy+}`
 * (a greedy variable also matches an empty tail, so `/x/` reaches `/x/{proxy+}`). The group's Lambda then matches
 * the exact path and method itself, and answers 404/405 in its envelope for anything else under its prefixes.
 * docs/deploying.md has the evidence.
 */

/** A gateway route: a path (its last segment may be the greedy `{proxy+}`) and the group whose Lambda it invokes. */
export interface GatewayRoute {
  readonly path: string;
  readonly group: GroupName;
}

export const greedy = '{proxy+}';

function segments(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

const isVariable = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/** Whether a route path starts with a prefix, any path variable matching any variable. */
function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  return prefix.every((segment, i) => {
    const other = path[i] as string;
    return isVariable(segment) ? isVariable(other) : segment === other;
  });
}

const join = (parts: readonly string[]) => `/${parts.join('/')}`;

/**
 * The shortest prefix of a route that only its own group's routes share, or the route's whole path when other
 * groups' routes sit below it (then the route gets its own bare and greedy keys, and the deeper routes' longer
 * greedy prefixes win over its greedy key).
 */
function ownPrefix(route: RouteDef, all: readonly RouteDef[], isolated: ReadonlySet<string>): string[] {
  const parts = segments(route.path);
  if (isolated.has(route.path)) return parts;
  for (let length = 1; length <= parts.length; length++) {
    const prefix = parts.slice(0, length);
    const sharing = all.filter((other) => startsWith(segments(other.path), prefix));
    if (sharing.every((other) => other.group === route.group)) return prefix;
  }
  return parts;
}

/**
 * Every gateway route of the route table: per group, the bare prefixes and their greedy children. An isolated
 * route-table path gets gateway routes of its own (its whole path), so that the stage can throttle it alone.
 */
export function gatewayRoutes(routes: readonly RouteDef[], isolated: readonly string[] = []): GatewayRoute[] {
  const byPath = new Map<string, GatewayRoute>();
  const own = new Set(isolated);
  for (const path of own) {
    if (!routes.some((route) => route.path === path)) throw new Error(`Isolated path ${path} is not a route`);
  }
  for (const route of routes) {
    const prefix = ownPrefix(route, routes, own);
    for (const path of [join(prefix), join([...prefix, greedy])]) {
      const existing = byPath.get(path);
      if (existing && existing.group !== route.group) {
        throw new Error(`Gateway route ${path} claimed by groups ${existing.group} and ${route.group}`);
      }
      byPath.set(path, { path, group: route.group });
    }
  }
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** The gateway route paths of an isolated route-table path: its whole path, bare and greedy. */
export function isolatedGatewayPaths(path: string): [string, string] {
  const parts = segments(path);
  return [join(parts), join([...parts, greedy])];
}

/**
 * The gateway route HTTP API picks for a request path, under its documented priority: a full match (path
 * variables match one non-empty segment) before a greedy match; among greedy matches, the longest prefix (the
 * documentation's example picks `/pets/{proxy+}` over `/{proxy+}`). Undefined when nothing matches.
 */
export function matchGatewayRoute(
  gateway: readonly GatewayRoute[],
  requestPath: string,
): GatewayRoute | undefined {
  const request = requestPath.split('/').slice(1);
  const full = gateway.find((route) => {
    const parts = segments(route.path);
    if (parts.at(-1) === greedy || parts.length !== request.length) return false;
    return parts.every((part, i) => {
      const value = request[i] as string;
      return isVariable(part) ? value !== '' : part === value;
    });
  });
  if (full) return full;
  const greedyMatches = gateway.filter((route) => {
    const parts = segments(route.path);
    if (parts.at(-1) !== greedy) return false;
    const prefix = parts.slice(0, -1);
    // The greedy variable takes the rest after `<prefix>/`, which may be empty (`/x/` reaches `/x/{proxy+}`).
    if (request.length <= prefix.length) return false;
    return prefix.every((part, i) => {
      const value = request[i] as string;
      return isVariable(part) ? value !== '' : part === value;
    });
  });
  const [best, next] = greedyMatches.sort((a, b) => segments(b.path).length - segments(a.path).length);
  if (
    best &&
    next &&
    segments(best.path).length === segments(next.path).length &&
    best.group !== next.group
  ) {
    throw new Error(`${requestPath} matches ${best.path} and ${next.path} equally`);
  }
  return best;
}
