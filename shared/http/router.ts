import type { Method, RouteDef } from '../api/route';
import { MethodNotAllowedError, NotFoundError } from '../errors';

interface CompiledRoute {
  route: RouteDef;
  segments: (string | { param: string })[];
  /** Static segments first: `/data/upsert` wins over `/data/{id}`. */
  rank: string;
}

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function compile(route: RouteDef): CompiledRoute {
  const segments = splitPath(route.path).map((segment) => {
    const param = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(segment);
    return param?.[1] ? { param: param[1] } : segment;
  });
  const rank = segments.map((segment) => (typeof segment === 'string' ? '0' : '1')).join('');
  return { route, segments, rank };
}

/** Matches request paths against a set of routes; paths match with or without a trailing slash. */
export class Router {
  /**
   * The compiled routes by their number of segments, each list in rank order: a path is only compared with the
   * routes that have as many segments as it has.
   */
  private readonly bySegments = new Map<number, CompiledRoute[]>();

  constructor(routes: readonly RouteDef[]) {
    const compiled = routes.map(compile).sort((a, b) => a.rank.localeCompare(b.rank));
    for (const route of compiled) {
      const list = this.bySegments.get(route.segments.length) ?? [];
      list.push(route);
      this.bySegments.set(route.segments.length, list);
    }
  }

  /** Finds the route for a method and path; 404 when no path matches, 405 when only other methods do. */
  match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    const upper = method.toUpperCase() as Method;
    let allowed: string[] | undefined;
    for (const candidate of this.bySegments.get(parts.length) ?? []) {
      if (!staticSegmentsMatch(candidate.segments, parts)) continue;
      const params = paramsOf(candidate.segments, parts);
      if (!params) continue;
      if (candidate.route.method === upper) return { route: candidate.route, params };
      allowed ??= [];
      allowed.push(candidate.route.method);
    }
    if (allowed) throw new MethodNotAllowedError({ allowed: [...new Set(allowed)] });
    throw new NotFoundError({ message: 'Not found.', code: 'route_not_found' });
  }
}

/** Whether the path's parts are the route's fixed segments (its parameters matched apart). */
function staticSegmentsMatch(segments: CompiledRoute['segments'], parts: string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (typeof segment === 'string' && segment !== parts[i]) return false;
  }
  return true;
}

/** The route's parameters from the path's parts (percent-decoded); undefined when one cannot be decoded. */
function paramsOf(segments: CompiledRoute['segments'], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (typeof segment === 'string' || !segment) continue;
    try {
      params[segment.param] = decodeURIComponent(parts[i] as string);
    } catch {
      return undefined;
    }
  }
  return params;
}
