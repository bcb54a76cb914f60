import type { RouteDef } from '../shared/http/route';

/**
 * The API Gateway route path of a route. API Gateway refuses route paths that end in "/", and matches a request
 * path with a trailing slash to the route without it (the handler's router accepts both spellings too), so the
 * route is created once, without its trailing slash.
 */
export function gatewayPath(route: RouteDef): string {
  return route.path.replace(/\/+$/, '') || '/';
}
