import type { App, User } from '../accounts/model';
import type { HttpResult } from '../api/result';
import type { GroupDef, GroupName, RouteDef } from '../api/route';
import type { Deps } from '../deps';
import type { Logger } from '../log';
import type { KeyPrincipal, OrganizationAccess } from '../policy/permissions';
import type { SiteAccess } from '../policy/policy';

/** What an operation gets: validated input, the authenticated user and, for site routes, the site access. */
export interface RequestContext<
  Body = unknown,
  Query = Record<string, unknown>,
  Params = Record<string, string>,
> {
  readonly deps: Deps;
  /** The request's logger: every line carries the request id. */
  readonly log: Logger;
  readonly route: RouteDef;
  readonly requestId: string;
  /** Path parameters; those with a schema are coerced to its type. */
  readonly params: Params;
  /** Query parameters after validation and coercion. */
  readonly query: Query;
  /** The raw query string, for parameters that repeat or are open-ended (filters). */
  readonly searchParams: URLSearchParams;
  readonly body: Body;
  readonly headers: Record<string, string | undefined>;
  /** The caller's address as API Gateway saw it (sign-in throttling). */
  readonly clientIp: string | undefined;
  readonly user: User | null;
  /** The API key of the request, when it carries one instead of a user's token (then `user` is null). */
  readonly key?: KeyPrincipal | null | undefined;
  /** Present on site-scoped routes. */
  readonly access: SiteAccess | null;
  /** Present on organization routes (`{org_slug}`): the organization and the caller's role in it. */
  readonly organization: OrganizationAccess | null;
  /** The app of the path's `{app_slug}` in the request's site, or null when the site has no such app. */
  readonly app: App | null;
}

/** A site-scoped context: the site has been resolved. */
export type SiteContext<
  Body = unknown,
  Query = Record<string, unknown>,
  Params = Record<string, string>,
> = RequestContext<Body, Query, Params> & {
  readonly access: SiteAccess;
};

// biome-ignore lint/suspicious/noExplicitAny: operations narrow their own body and query types.
export type Operation = (ctx: RequestContext<any, any, any>) => Promise<HttpResult>;

/** The operations of one endpoint group, keyed by operationId. */
export type Operations = Readonly<Record<string, Operation>>;

/** An endpoint group ready to serve: its manifest (functions/<group>/manifest.ts) and its operations. */
export interface GroupService {
  readonly manifest: GroupDef;
  readonly operations: Operations;
}

/** Every endpoint group, for the local server (functions/registry.ts); the cloud loads one group per Lambda. */
export type GroupRegistry = Readonly<Record<GroupName, GroupService>>;

/** The site of a site-scoped route; a route-table error otherwise. */
export function siteContext<B, Q, P>(ctx: RequestContext<B, Q, P>): SiteContext<B, Q, P> {
  if (!ctx.access) throw new Error(`Route ${ctx.route.operationId} is not site-scoped`);
  return ctx as SiteContext<B, Q, P>;
}

/** The authenticated user of a bearer route. */
export function currentUser(ctx: RequestContext<unknown, unknown, unknown>): User {
  if (!ctx.user) throw new Error(`Route ${ctx.route.operationId} has no authenticated user`);
  return ctx.user;
}

/**
 * Whose act a write records: the signed-in user, or for an API key its creator (a secret's `created_by`, say).
 * Rights are never decided on it: the policy decides on the key.
 */
export function actingUser(ctx: RequestContext<unknown, unknown, unknown>): User {
  const user = ctx.user ?? ctx.key?.creator;
  if (!user) throw new Error(`Route ${ctx.route.operationId} has no authenticated user or key`);
  return user;
}
