import { slugMaxLength } from '../slug';
import type { RouteDef } from './route';

/**
 * The bounds of every path parameter of the route table, by name: the one place that says how long a `{param}` may
 * be (docs/security.md, "Path parameters"). The pipeline checks them right after routing, before any store is
 * asked (shared/http/handler.ts), so a parameter no stored object can have (a few thousand characters, say) is a
 * 400 naming it instead of a key DynamoDB refuses; the OpenAPI document shows them; a route whose path names a
 * parameter without a bound here does not start. Each bound is the longest value the parameter can name: the
 * limit of the body field it comes from, or of the id's digits. Routes still declare a parameter's type and
 * pattern in their `params` schema, which validation checks after the permission, as it checks bodies.
 */
export interface PathParamBound {
  /** Characters (code points), as a body field's `maxLength` counts them. */
  readonly maxLength: number;
  /** UTF-8 bytes: keys built from the value stay within DynamoDB's key sizes (1,024 bytes for a sort key). */
  readonly maxBytes: number;
}

/** A value of at most `maxLength` characters, of at most 512 UTF-8 bytes (ids and names of other stores: more). */
const bound = (maxLength: number, maxBytes = 512): PathParamBound => ({ maxLength, maxBytes });

/** The digits of an id within the safe integer range (16), with room for a sign or leading zeros the schema refuses. */
const integerId = bound(20);

export const pathParamBounds: Readonly<Record<string, PathParamBound>> = {
  // Slugs: organizations, sites, apps and groups are slugs of at most 100 characters (shared/slug.ts).
  org_slug: bound(slugMaxLength),
  site_slug: bound(slugMaxLength),
  app_slug: bound(slugMaxLength),
  group_slug: bound(slugMaxLength),
  // Roles' slugs are longer (shared/roles/schemas.ts, 300); secret types' and tags' are within that.
  role_slug: bound(300),
  slug: bound(300),
  // A user in the roles group: a username or an e-mail address (254).
  username: bound(254, 1016),
  // A secret's key (shared/secrets/schemas.ts, keyLength).
  key: bound(200),
  // Data tables, fields and indexes: PostgreSQL identifiers (shared/data/schema/names.ts, 63).
  name: bound(63),
  field: bound(63),
  index: bound(63),
  // A record's primary key or an edge's id: kept in PostgreSQL, as long as an edge's endpoint (1,000).
  id: bound(1000, 4000),
  edge_id: bound(1000, 4000),
  user_id: bound(64),
  function_id: integerId,
  webhook_id: integerId,
  // An invitation's uuid, and its public token (43 characters of base64url; longer ones are not looked up).
  uuid: bound(36),
  // An API key's id (a uuid).
  key_id: bound(36),
  // The invitation a resend names (its uuid; the path once called it `{user_id}`, docs/api-decisions.md).
  invitation_id: bound(64),
  token: bound(128),
  provider: bound(64),
  event_name: bound(64),
  asset: bound(100),
  // One's own session: a refresh family's uuid (36) or a browser session's SHA-256 (64 hex).
  session_id: bound(64),
};

/** The `{names}` of a route's path, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1] as string);
}

/** Throws at start when a route's path names a parameter without a bound. */
export function assertPathParamsBounded(route: Pick<RouteDef, 'operationId' | 'path'>): void {
  for (const name of pathParamNames(route.path))
    if (!pathParamBounds[name])
      throw new Error(
        `Route ${route.operationId}: path parameter {${name}} has no bound in shared/api/path-params.ts`,
      );
}

/** The bound of a parameter, as JSON Schema keywords (the OpenAPI document). */
export function pathParamSchema(name: string): { maxLength: number } | undefined {
  const found = pathParamBounds[name];
  return found ? { maxLength: found.maxLength } : undefined;
}

/** The first parameter over its bound, with the message that names the limit; undefined when all are within. */
export function overlongPathParam(
  params: Readonly<Record<string, string>>,
): { name: string; message: string } | undefined {
  for (const name of Object.keys(params)) {
    const value = params[name] as string;
    const limit = pathParamBounds[name];
    if (!limit) continue;
    // Code points, as ajv's maxLength counts them; a value short in characters can still be long in bytes.
    if (value.length > limit.maxLength && [...value].length > limit.maxLength)
      return { name, message: `Ensure this field has no more than ${limit.maxLength} characters.` };
    if (value.length * 3 > limit.maxBytes && Buffer.byteLength(value, 'utf8') > limit.maxBytes)
      return { name, message: `Ensure this field has no more than ${limit.maxBytes} bytes of UTF-8.` };
  }
  return undefined;
}
