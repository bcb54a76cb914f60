import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { readJsonBody } from '../api/body';
import { assertPathParamsBounded, overlongPathParam } from '../api/path-params';
import type { HttpResult } from '../api/result';
import type { GroupDef, GroupName, RouteDef } from '../api/route';
import { looksLikeApiKey } from '../api-keys/model';
import { noteKeyUse, resolveApiKey, throttleApiKey } from '../api-keys/resolution';
import { type Credentials, requireCurrentCredentials, sessionCredentials } from '../auth/browser-sessions';
import { bearerToken } from '../auth/tokens';
import type { Deps } from '../deps';
import { AppError, AuthenticationError, ValidationError } from '../errors';
import { summarize } from '../field-errors';
import type { Logger } from '../log';
import {
  enforce,
  isOrganizationPermission,
  isSitePermission,
  needsUser,
  readsUser,
  requireKeySite,
} from '../policy/permissions';
import { requireSecondFactorWhereRequired } from '../policy/second-factor';
import { keyRequest, type LoadedRequest, loadRequest, type RequestTarget } from '../tenancy/principal';
import { siteSlugOf } from '../tenancy/tenancy';
import type { Operations, RequestContext } from './context';
import { errorBody, errorHeaders, internalErrorBody } from './envelopes';
import { loggedPath } from './logged-path';
import { type RouteMatch, Router } from './router';
import { prepareValidators, validate, validatorsLoaded } from './validation';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2;
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;

function lowerHeaders(event: HttpEvent): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  const given = event.headers;
  if (given) for (const name of Object.keys(given)) headers[name.toLowerCase()] = given[name];
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  return headers;
}

function queryObject(searchParams: URLSearchParams): Record<string, unknown> {
  const query: Record<string, unknown> = Object.create(null);
  for (const key of new Set(searchParams.keys())) {
    const values = searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** Who the request is: its bearer token's verified claims, else its browser session; null on a public route. */
async function authenticate(
  deps: Deps,
  route: RouteDef,
  headers: Record<string, string | undefined>,
): Promise<Credentials | null> {
  if (!readsUser(route.permission)) return null;
  const header = headers.authorization;
  if (!header) {
    // The `sessionid` cookie (shared/auth/browser-sessions.ts); a bearer token, when sent, wins.
    const session = await sessionCredentials(deps, route.method, headers);
    if (session) return session;
    if (needsUser(route.permission)) throw new AuthenticationError();
    return null;
  }
  const token = bearerToken(header);
  if (!token) {
    throw new AuthenticationError({
      message: 'Authentication credentials were not provided.',
      code: 'not_authenticated',
    });
  }
  return deps.tokens.verify(token, 'access');
}

/** What the route's permission is decided on: the request's site, the path's organization and app. */
function targetOf(
  deps: Deps,
  route: RouteDef,
  params: Record<string, string>,
  headers: Record<string, string | undefined>,
  userId: number | null,
): RequestTarget {
  const site = route.scope === 'site' ? siteSlugOf(headers, deps.config) : null;
  return {
    userId,
    site,
    organization: isOrganizationPermission(route.permission) ? (params.org_slug ?? null) : null,
    app: site !== null ? (params.app_slug ?? null) : null,
  };
}

function respond(result: HttpResult, requestId: string): HttpResponse {
  // Payload 2.0 sends cookies from `cookies` (one Set-Cookie header each); the local server does the same.
  const given = result.headers;
  const cookie = given?.['set-cookie'];
  if (cookie) {
    const { 'set-cookie': _, ...others } = given;
    return { ...respond({ ...result, headers: others }, requestId), cookies: [cookie] };
  }
  if (result.raw) return rawResponse(result.status, result.raw, { 'x-request-id': requestId, ...given });
  if (result.body === undefined || result.status === 204)
    return { statusCode: result.status, headers: { 'x-request-id': requestId, ...given } };
  // One object, in the order of `{ 'content-type', ...{ 'x-request-id', ...given } }`.
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': requestId };
  if (given) for (const name of Object.keys(given)) headers[name] = given[name] as string;
  return { statusCode: result.status, headers, body: JSON.stringify(result.body) };
}

/** Text goes out as it is; bytes are base64-encoded, as API Gateway expects binary Lambda responses. */
function rawResponse(status: number, raw: NonNullable<HttpResult['raw']>, headers: Record<string, string>) {
  const text = typeof raw.body === 'string';
  return {
    statusCode: status,
    headers: { 'content-type': raw.contentType, ...headers },
    body: typeof raw.body === 'string' ? raw.body : raw.body.toString('base64'),
    isBase64Encoded: !text,
  };
}

function requestIdOf(event: HttpEvent, context: Context | undefined): string {
  return event.requestContext?.requestId || context?.awsRequestId || randomUUID();
}

/** Turns any error into the response of a group's envelope; unexpected errors are logged and become 500s. */
export function errorResponse(
  log: Logger | undefined,
  group: Pick<GroupDef, 'name' | 'envelope'>,
  error: unknown,
  requestId: string,
) {
  const style = group.envelope;
  if (error instanceof AppError) {
    return respond(
      { status: error.status, body: errorBody(style, error), headers: errorHeaders(error) },
      requestId,
    );
  }
  const fields = {
    request_id: requestId,
    group: group.name,
    error:
      error instanceof Error
        ? { name: error.name, message: error.message, stack: error.stack }
        : String(error),
  };
  if (log) log.error('unhandled error', fields);
  else process.stderr.write(`${JSON.stringify({ level: 'error', message: 'unhandled error', ...fields })}\n`);
  return respond({ status: 500, body: internalErrorBody(style, requestId) }, requestId);
}

/** The path parameters, query and body of a request, validated against the route's schemas (400 otherwise). */
function validatedInput(
  route: RouteDef,
  params: Record<string, string>,
  event: HttpEvent,
  headers: Record<string, string | undefined>,
): { searchParams: URLSearchParams; query: Record<string, unknown>; body: unknown } {
  const searchParams = new URLSearchParams(event.rawQueryString ?? '');
  if (route.params) validate(route.params, params, true);
  const query = queryObject(searchParams);
  if (route.query) validate(route.query, query, true);
  let body: unknown;
  if (route.body) {
    body = readJsonBody(event, headers) ?? {};
    validate(route.body, body);
  }
  return { searchParams, query, body };
}

/** What the request log line says of one request, filled in as the pipeline learns it. */
interface RequestFacts {
  started: number;
  requestId: string;
  routeId?: string;
  userId?: number;
  /** The API key's id (never the key) when the request carries one. */
  apiKeyId?: string;
  site?: string;
  log?: Logger;
}

let coldStart = true;

function logRequest(deps: Deps | undefined, event: HttpEvent, facts: RequestFacts, status: number): void {
  const first = coldStart;
  coldStart = false;
  const log = facts.log ?? deps?.log;
  // Below the log level (the bench runs at `warn`) the line is not even built.
  if (!log || log.enabled?.('info') === false) return;
  const line: Record<string, unknown> = {
    method: event.requestContext?.http?.method,
    path: loggedPath(event.rawPath),
    route: facts.routeId ?? null,
    status,
    duration_ms: Math.round((performance.now() - facts.started) * 10) / 10,
    user_id: facts.userId ?? null,
    site: facts.site ?? null,
  };
  if (facts.apiKeyId) line.api_key_id = facts.apiKeyId;
  if (deps?.config.runtime === 'aws') line.cold_start = first;
  log.info('request', facts.log ? line : { request_id: facts.requestId, ...line });
}

/** A group's routes each have an operation, and a site permission exactly on the site routes. */
function checkRoutes(group: GroupName, operations: Operations, routes: readonly RouteDef[]): void {
  for (const route of routes) {
    if (!operations[route.operationId])
      throw new Error(`Group ${group} does not implement ${route.operationId}`);
    if (isSitePermission(route.permission) !== (route.scope === 'site'))
      throw new Error(`Route ${route.operationId}: a site permission goes with a site route, and only there`);
    assertPathParamsBounded(route);
    prepareValidators(route);
  }
}

/**
 * Every path parameter within its bound (shared/api/path-params.ts) before anything reads a store: a value no
 * stored object can have is a 400 naming it, whoever asks, never a key the store refuses.
 */
function checkPathBounds(params: Record<string, string>): void {
  const overlong = overlongPathParam(params);
  if (!overlong) return;
  const fields = { [overlong.name]: [overlong.message] };
  throw new ValidationError({ fields, message: summarize(fields) });
}

/** The API key of a request's `Authorization: Bearer tbk_…` header, on routes that read credentials; else null. */
function apiKeyOf(route: RouteDef, headers: Record<string, string | undefined>): string | null {
  const header = headers.authorization;
  if (!header || !readsUser(route.permission)) return null;
  const token = bearerToken(header);
  return token && looksLikeApiKey(token) ? token : null;
}

/**
 * Who and where for an API key (docs/security.md, "API keys"): the key by its hash (remembered a second at most),
 * its own throttle, its site (a request naming another is a 403 before anything is read of it), then its creator's
 * current rights there through the same access cache as a user's, as the key's principal.
 */
async function keyWhoAndWhere(
  deps: Deps,
  route: RouteDef,
  params: Record<string, string>,
  headers: Record<string, string | undefined>,
  fact: RequestFacts,
  token: string,
): Promise<LoadedRequest> {
  const key = await resolveApiKey(deps.store, deps.clock, token);
  fact.apiKeyId = key.id;
  fact.userId = key.created_by;
  throttleApiKey(key, deps.config.apiKeyRequestsPerSecond, deps.clock);
  const site =
    route.scope === 'site'
      ? siteSlugOf(headers, { baseDomain: deps.config.baseDomain, defaultSite: key.site })
      : null;
  requireKeySite(key, site);
  const target: RequestTarget = {
    userId: key.created_by,
    site,
    organization: isOrganizationPermission(route.permission) ? (params.org_slug ?? null) : null,
    app: site !== null ? (params.app_slug ?? null) : null,
  };
  if (site !== null) fact.site = site;
  const loaded = await deps.accessCache.get(target, () => loadRequest(deps.store, target));
  await noteKeyUse(deps.store, deps.clock, key, fact.log ?? deps.log);
  return keyRequest(loaded, key);
}

/**
 * Who and where: the caller's credentials, then the user, site, organization and app the permission is decided on,
 * in one DynamoDB round trip (or none, from the access cache).
 */
async function whoAndWhere(
  deps: Deps,
  route: RouteDef,
  params: Record<string, string>,
  headers: Record<string, string | undefined>,
  fact: RequestFacts,
): Promise<LoadedRequest> {
  const apiKey = apiKeyOf(route, headers);
  if (apiKey !== null) return keyWhoAndWhere(deps, route, params, headers, fact, apiKey);
  const claims = await authenticate(deps, route, headers);
  if (claims) fact.userId = claims.userId;
  const target = targetOf(deps, route, params, headers, claims?.userId ?? null);
  if (target.site !== null) fact.site = target.site;
  // A token issued after the remembered user item (a password change elsewhere) has the user read again.
  const loaded = await deps.accessCache.get(
    target,
    () => loadRequest(deps.store, target),
    (cached) => !claims || claims.tokenVersion <= (cached.storedUser?.token_version ?? 0),
  );
  // A password change or a deactivation raised the user's token version: earlier tokens stop here.
  if (claims && loaded.storedUser) requireCurrentCredentials(claims, loaded.storedUser);
  return loaded;
}

/**
 * The request's input once the caller may send it: the route's permission first (a caller without it is refused
 * whatever the body says), then validation; a rule-based permission, which reads the body, comes after.
 */
async function permittedInput(
  route: RouteDef,
  principal: LoadedRequest['principal'],
  storedUser: LoadedRequest['storedUser'],
  params: Record<string, string>,
  event: HttpEvent,
  headers: Record<string, string | undefined>,
) {
  const ruleBased = route.permission.startsWith('rule:');
  if (!ruleBased) {
    enforce(route.permission, principal, { params, body: undefined });
    if (route.permission !== 'public') requireSecondFactorWhereRequired(principal, storedUser);
  }
  const loading = validatorsLoaded(route);
  if (loading) await loading;
  const input = validatedInput(route, params, event, headers);
  if (ruleBased) {
    enforce(route.permission, principal, { params, body: input.body });
    requireSecondFactorWhereRequired(principal, storedUser);
  }
  return input;
}

/**
 * Lambda's deadline, less a margin: a request still running then is answered (a 500 in the group's envelope, with
 * its log line) before Lambda cuts the function off. Only where the context tells the time left (Lambda); locally no
 * timer is set.
 */
const deadlineMarginMs = 5;

async function beforeDeadline<T>(work: Promise<T>, context: Context | undefined): Promise<T> {
  const remaining = context?.getRemainingTimeInMillis?.();
  if (remaining === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('The request reached the function timeout')),
      Math.max(0, remaining - deadlineMarginMs),
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A group's pipeline; `match` is the route when the caller has matched it already (the local app). */
export type GroupPipeline = (
  event: HttpEvent,
  context: Context | undefined,
  match?: RouteMatch,
) => Promise<HttpResponse>;

/** The pipeline of one endpoint group (see `createGroupHandler`), which may be handed the route already matched. */
export function createGroupPipeline(
  group: GroupDef,
  operations: Operations,
  getDeps: () => Deps,
  routes: readonly RouteDef[] = group.routes,
): GroupPipeline {
  checkRoutes(group.name, operations, routes);
  const router = new Router(routes);
  const changesAccess = group.changesAccess === true;

  const run = async (
    deps: Deps,
    event: HttpEvent,
    fact: RequestFacts,
    matched: RouteMatch | undefined,
  ): Promise<HttpResponse> => {
    const { requestId, log } = fact;
    const { route, params } = matched ?? router.match(event.requestContext.http.method, event.rawPath);
    fact.routeId = route.operationId;
    checkPathBounds(params);
    const headers = lowerHeaders(event);
    // Who and where come before what: an anonymous request is a 401 whatever its body says.
    const { principal, app, storedUser } = await whoAndWhere(deps, route, params, headers, fact);
    const { searchParams, query, body } = await permittedInput(
      route,
      principal,
      storedUser,
      params,
      event,
      headers,
    );
    const ctx: RequestContext = {
      deps,
      log: log as Logger,
      route,
      requestId,
      params,
      query,
      searchParams,
      body,
      headers,
      clientIp: event.requestContext.http.sourceIp,
      user: principal.user,
      key: principal.key ?? null,
      access: principal.site,
      organization: principal.organization,
      app,
    };
    const operation = operations[route.operationId] as NonNullable<Operations[string]>;
    let result: HttpResult;
    try {
      result = await operation(ctx);
    } finally {
      // A change of who may do what is seen at once by this container (others: within the cache's window).
      if (changesAccess && route.method !== 'GET') deps.accessCache.clear();
    }
    return respond(result, requestId);
  };

  // Any error becomes the group's envelope, and the request is logged all the same.
  return async (event, context, matched) => {
    let deps: Deps | undefined;
    let fact: RequestFacts | undefined;
    let response: HttpResponse;
    try {
      deps = getDeps();
      const requestId = requestIdOf(event, context);
      fact = { started: performance.now(), requestId, log: deps.log.child({ request_id: requestId }) };
      response = await beforeDeadline(run(deps, event, fact, matched), context);
    } catch (error) {
      fact ??= { started: performance.now(), requestId: requestIdOf(event, context) };
      response = errorResponse(fact.log ?? deps?.log, group, error, fact.requestId);
    }
    logRequest(deps, event, fact, response.statusCode ?? 200);
    return response;
  };
}

/**
 * The handler of one endpoint group (one Lambda): route, authenticate, load who and where in one DynamoDB round
 * trip, enforce the route's permission, validate, run the operation, shape the response, and log one line. The same
 * handler serves API Gateway and the local server. `group` is the group's manifest (functions/<group>/manifest.ts):
 * a Lambda imports only its own. `routes` are the ones it serves: by default all the manifest's routes (the hosted
 * pages serve a few of another group's, pages/api.ts).
 */
export function createGroupHandler(
  group: GroupDef,
  operations: Operations,
  getDeps: () => Deps,
  routes: readonly RouteDef[] = group.routes,
): HttpHandler {
  const pipeline = createGroupPipeline(group, operations, getDeps, routes);
  return (event, context) => pipeline(event, context);
}
