import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { User } from '../accounts/model';
import { getUser } from '../accounts/users';
import { bearerToken } from '../auth/tokens';
import type { Deps } from '../deps';
import { AppError, AuthenticationError, PermissionDeniedError } from '../errors';
import { can, type SiteAccess } from '../policy/policy';
import { resolveSiteAccess, siteSlugOf } from '../tenancy/tenancy';
import { readJsonBody } from './body';
import type { HttpResult, Operations, RequestContext } from './context';
import { errorBody, errorHeaders, internalErrorBody } from './envelopes';
import type { GroupName, RouteDef } from './route';
import { Router } from './router';
import { groups, routesOf } from './routes';
import { precompile, validate } from './validation';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2;
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;

function lowerHeaders(event: HttpEvent): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
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

async function authenticate(deps: Deps, route: RouteDef, headers: Record<string, string | undefined>) {
  if (route.auth === 'public') return null;
  const header = headers.authorization;
  if (!header) {
    if (route.auth === 'bearer') throw new AuthenticationError();
    return null;
  }
  const token = bearerToken(header);
  if (!token) {
    throw new AuthenticationError('Authentication credentials were not provided.', 'not_authenticated');
  }
  const claims = await deps.tokens.verify(token, 'access');
  const user = await getUser(deps.store, claims.userId);
  if (!user?.is_active) throw new AuthenticationError('User not found or inactive.', 'user_inactive');
  return user;
}

async function tenancy(
  deps: Deps,
  route: RouteDef,
  headers: Record<string, string | undefined>,
  user: User | null,
): Promise<SiteAccess | null> {
  if (route.scope !== 'site') return null;
  const slug = siteSlugOf(headers, deps.config);
  const access = await resolveSiteAccess(deps.store, slug, user);
  // A signed-in user who holds nothing on the site may not use its API at all.
  if (user && route.auth === 'bearer' && !can(access, 'access')) throw new PermissionDeniedError();
  return access;
}

function respond(result: HttpResult, requestId: string): HttpResponse {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...result.headers };
  if (result.body === undefined || result.status === 204) return { statusCode: result.status, headers };
  return {
    statusCode: result.status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(result.body),
  };
}

function requestIdOf(event: HttpEvent, context: Context | undefined): string {
  return event.requestContext?.requestId || context?.awsRequestId || randomUUID();
}

/** Turns any error into the response of a group's envelope; unexpected errors are logged and become 500s. */
export function errorResponse(deps: Deps | undefined, group: GroupName, error: unknown, requestId: string) {
  const style = groups[group].envelope;
  if (error instanceof AppError) {
    return respond(
      { status: error.status, body: errorBody(style, error), headers: errorHeaders(error) },
      requestId,
    );
  }
  const fields = {
    request_id: requestId,
    group,
    error:
      error instanceof Error
        ? { name: error.name, message: error.message, stack: error.stack }
        : String(error),
  };
  if (deps) deps.log.error('unhandled error', fields);
  else process.stderr.write(`${JSON.stringify({ level: 'error', message: 'unhandled error', ...fields })}\n`);
  return respond({ status: 500, body: internalErrorBody(style, requestId) }, requestId);
}

/**
 * The handler of one endpoint group (one Lambda): route, parse, validate, authenticate, resolve the site, run the
 * operation, shape the response. The same handler serves API Gateway and the local server.
 */
export function createGroupHandler(
  group: GroupName,
  operations: Operations,
  getDeps: () => Deps,
): HttpHandler {
  const routes = routesOf(group);
  for (const route of routes) {
    if (!operations[route.operationId])
      throw new Error(`Group ${group} does not implement ${route.operationId}`);
    precompile(route.body, false);
    precompile(route.query, true);
    precompile(route.params, true);
  }
  const router = new Router(routes);

  const run = async (event: HttpEvent, context: Context): Promise<HttpResponse> => {
    const deps = getDeps();
    const requestId = requestIdOf(event, context);
    const { route, params } = router.match(event.requestContext.http.method, event.rawPath);
    const headers = lowerHeaders(event);
    // Who and where come before what: an anonymous request is a 401 whatever its body says.
    const user = await authenticate(deps, route, headers);
    const access = await tenancy(deps, route, headers, user);
    const searchParams = new URLSearchParams(event.rawQueryString ?? '');
    if (route.params) validate(route.params, params, true);
    const query = queryObject(searchParams);
    if (route.query) validate(route.query, query, true);
    let body: unknown;
    if (route.body) {
      body = readJsonBody(event, headers) ?? {};
      validate(route.body, body);
    }
    const ctx: RequestContext = {
      deps,
      route,
      requestId,
      params,
      query,
      searchParams,
      body,
      headers,
      user,
      access,
    };
    const operation = operations[route.operationId] as NonNullable<Operations[string]>;
    return respond(await operation(ctx), requestId);
  };

  return middy<HttpEvent, HttpResponse, Error, Context>()
    .use({
      onError: async (request) => {
        let deps: Deps | undefined;
        try {
          deps = getDeps();
        } catch {
          deps = undefined;
        }
        request.response = errorResponse(
          deps,
          group,
          request.error,
          requestIdOf(request.event, request.context),
        );
      },
    })
    .handler(run);
}
