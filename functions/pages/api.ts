import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { accountRoutes } from '../../shared/accounts/routes';
import type { GroupDef, RouteDef } from '../../shared/api/route';
import type { Deps } from '../../shared/deps';
import type { Operations, RequestContext } from '../../shared/http/context';
import { createGroupHandler, type HttpEvent, type HttpHandler } from '../../shared/http/handler';
import { Router } from '../../shared/http/router';
import { invitationRoutes } from '../../shared/invitations/routes';
import { pageRoutes } from '../../shared/pages/routes';
import { socialRoutes } from '../../shared/social/routes';
import { currentUserOperations } from '../accounts/current-user-operations';
import { accountsManifest } from '../accounts/manifest';
import { authManifest } from '../auth/manifest';
import { socialReadOperations } from '../auth/social-read-operations';
import { invitationReadOperations } from '../invitations/details-operations';
import { invitationsManifest } from '../invitations/manifest';
import { pagesManifest } from './manifest';
import { siteOperations } from './site';

/**
 * How a page reads what it shows: through the public API's own routes, in this process. A call is an API Gateway
 * event for the route, run by that route's group handler, so the route's authentication, permission, site rules,
 * validation, throttling and logging apply exactly as for any client; nothing is read beside the API. Only reads
 * (GET) are made here: every change a page makes is a request of the person's browser (pages/assets/pages.js).
 *
 * The routes the pages read: the public invitation details, the site's name and social apps, the signed-in user and
 * its provider links. In the cloud the pages function bundles those routes' operations (a few groups' code, no more).
 */
export const readRoutes: readonly RouteDef[] = [
  ...invitationRoutes.filter((route) => route.operationId === 'getInvitationDetails'),
  ...socialRoutes.filter((route) => ['listSocialApps', 'listSocialAccounts'].includes(route.operationId)),
  ...accountRoutes.filter((route) => route.operationId === 'getCurrentUser'),
  ...pageRoutes.filter((route) => route.operationId === 'siteName'),
];

/**
 * The groups the pages read, each with the operations of the routes read here: each group's own, from modules that
 * hold only them (not the whole group's).
 */
const readGroups: readonly (readonly [GroupDef, Operations])[] = [
  [invitationsManifest, invitationReadOperations],
  [authManifest, socialReadOperations],
  [accountsManifest, currentUserOperations],
  [pagesManifest, siteOperations],
];

interface Dispatcher {
  router: Router;
  handlers: Map<string, HttpHandler>;
}

const dispatchers = new WeakMap<Deps, Dispatcher>();

function dispatcherOf(deps: Deps): Dispatcher {
  let dispatcher = dispatchers.get(deps);
  if (!dispatcher) {
    const handlers = new Map<string, HttpHandler>();
    for (const [group, operations] of readGroups) {
      const routes = readRoutes.filter((route) => route.group === group.name);
      handlers.set(
        group.name,
        createGroupHandler(group, operations, () => deps, routes),
      );
    }
    dispatcher = { router: new Router(readRoutes), handlers };
    dispatchers.set(deps, dispatcher);
  }
  return dispatcher;
}

export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the pages read the fields they show from the routes' documented bodies.
  body: any;
}

/** The headers a page passes on to the API: who the browser is (its cookie), where (site, host, scheme). */
const forwarded = ['cookie', 'host', 'x-forwarded-proto', 'user-agent'] as const;

/**
 * GETs one API route as the browser that asked for the page would: its cookie, its address (for the routes'
 * throttling), its host and scheme, and the page's site as `X-Site` (null: the host rules and DEFAULT_SITE).
 * `anonymous` leaves the cookie out, for what a page shows to anyone (the site's name, its providers): a cookie of
 * an ended session is a 401 on any route that reads one, and must not turn a sign-in page into an error.
 */
export async function apiGet(
  ctx: RequestContext<unknown, unknown, unknown>,
  path: string,
  site: string | null,
  query = '',
  { anonymous = false }: { anonymous?: boolean } = {},
): Promise<ApiAnswer> {
  const { router, handlers } = dispatcherOf(ctx.deps);
  const { route } = router.match('GET', path);
  const handler = handlers.get(route.group);
  if (!handler) throw new Error(`The pages do not read the group ${route.group}`);
  const headers: Record<string, string> = {};
  for (const name of forwarded) {
    if (anonymous && name === 'cookie') continue;
    const value = ctx.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  if (site) headers['x-site'] = site;
  const now = Date.now();
  const requestId = randomUUID();
  const event: HttpEvent = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: query,
    headers,
    requestContext: {
      accountId: 'pages',
      apiId: 'pages',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method: 'GET',
        path,
        protocol: 'HTTP/1.1',
        sourceIp: ctx.clientIp ?? '',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    isBase64Encoded: false,
  };
  const context = { awsRequestId: requestId, functionName: route.group } as Context;
  const response = await handler(event, context);
  const text = typeof response.body === 'string' ? response.body : '';
  return { status: response.statusCode ?? 200, body: text ? JSON.parse(text) : undefined };
}
