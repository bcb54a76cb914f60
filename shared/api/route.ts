import type { Permission } from './permission';

/**
 * The shape of one route in the route table. A route is declared once; the local server, the Lambda handlers, the
 * CDK stack and the OpenAPI document are all derived from these declarations.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** platform: not tied to a site; site: the request resolves its site (tenant) before the operation runs. */
export type Scope = 'platform' | 'site';

/** The error-body styles the specs use; each endpoint group has exactly one. */
export type EnvelopeStyle = 'detail' | 'roles' | 'secrets' | 'data' | 'events';

export type JsonSchema = Record<string, unknown>;

export interface RouteDef {
  /** Unique, stable name of the operation; the group's handler implements it. */
  readonly operationId: string;
  readonly method: Method;
  /** Path with `{param}` placeholders, as the spec writes it. Matched with or without a trailing slash. */
  readonly path: string;
  /** Endpoint group: one Lambda function per group. */
  readonly group: GroupName;
  /** Who may call it (policy/permissions.ts); the pipeline enforces it before the operation runs. */
  readonly permission: Permission;
  readonly scope: Scope;
  readonly summary: string;
  /** JSON Schema of the body; absent means the body is ignored. */
  readonly body?: JsonSchema;
  /** JSON Schema of the query string (values arrive as strings; coerced by ajv). */
  readonly query?: JsonSchema;
  /** JSON Schema of the path parameters. */
  readonly params?: JsonSchema;
  /** Every response the route can give, by status: the success bodies and the error statuses (responses.ts). */
  readonly responses?: Responses;
}

/** One response of a route: a JSON body's schema, or another content type; error statuses use the group's envelope. */
export interface ResponseDef {
  readonly description: string;
  /** JSON Schema of the body; absent for an error status (its body is the group's error envelope) and for 204. */
  readonly schema?: JsonSchema;
  /** The body's media type when it is not JSON (the explorer's HTML, scripts and images). */
  readonly contentType?: string;
}

/** A route's responses by HTTP status. */
export type Responses = Readonly<Record<number, ResponseDef>>;

/**
 * An endpoint group as the code sees it (one Lambda each): what the handler, the route table and the OpenAPI document
 * read. Each group declares it in its manifest, `functions/<group>/manifest.ts` (shared/api/group.ts, `GroupManifest`).
 */
export interface GroupDef {
  readonly name: GroupName;
  readonly description: string;
  readonly envelope: EnvelopeStyle;
  /** Every route of the group, each naming the group (`defineGroup` checks that they agree). */
  readonly routes: readonly RouteDef[];
  /** Its writes change who may do what (users, memberships, permissions, sites, apps): they clear the access cache. */
  readonly changesAccess?: boolean;
}

export type GroupName =
  | 'auth'
  | 'accounts'
  | 'roles'
  | 'secrets'
  | 'data'
  | 'meta'
  | 'invitations'
  | 'events'
  | 'pages';
