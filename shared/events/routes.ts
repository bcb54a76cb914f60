import { errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import * as schemas from './schemas';

const site = { group: 'events', scope: 'site' } as const;
const functionsPath = '/api/apps/{app_slug}/functions/';

/**
 * The functions registry and event subscriptions (docs/events.md). Registering, removing and subscribing functions
 * is site configuration (`site:configure`: manage_site or admin_site); reading them needs `site:view`.
 */
export const eventRoutes = [
  {
    ...site,
    operationId: 'createFunction',
    permission: 'site:configure',
    method: 'POST',
    path: functionsPath,
    summary: "Register a function in the app (its target must satisfy the runtime's rule)",
    params: schemas.appParams,
    body: schemas.newFunctionBody,
    responses: {
      201: json('The new function', schemas.envelope(schemas.registeredFunction)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'listFunctions',
    permission: 'site:view',
    method: 'GET',
    path: functionsPath,
    summary: "The app's functions",
    params: schemas.appParams,
    responses: {
      200: json('Every function of the app', schemas.envelope(schemas.functionList)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'getFunction',
    permission: 'site:view',
    method: 'GET',
    path: `${functionsPath}{function_id}/`,
    summary: 'A function of the app',
    params: schemas.functionParams,
    responses: {
      200: json('The function', schemas.envelope(schemas.registeredFunction)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'deleteFunction',
    permission: 'site:configure',
    method: 'DELETE',
    path: `${functionsPath}{function_id}/`,
    summary: 'Remove a function and its subscriptions',
    params: schemas.functionParams,
    responses: {
      200: json('The function is removed', schemas.envelope(schemas.emptyData)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    group: 'events',
    scope: 'platform',
    operationId: 'listEvents',
    permission: 'authenticated',
    method: 'GET',
    path: '/api/cloud/events/',
    summary: 'The event types functions can subscribe to',
    responses: { 200: json('The event types', schemas.envelope(schemas.eventList)), ...errors(401) },
  },
  {
    ...site,
    operationId: 'subscribe',
    permission: 'site:configure',
    method: 'POST',
    path: '/api/cloud/events/{event_name}/subscribe/',
    summary: 'Subscribe a function of the site to an event (each pair once)',
    params: schemas.eventParams,
    body: schemas.subscribeBody,
    responses: {
      200: json('The subscription', schemas.envelope(schemas.subscriber)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'unsubscribe',
    permission: 'site:configure',
    method: 'POST',
    path: '/api/cloud/events/{event_name}/unsubscribe/',
    summary: 'Remove a subscription',
    params: schemas.eventParams,
    body: schemas.subscribeBody,
    responses: {
      200: json('The subscription is removed', schemas.envelope(schemas.emptyData)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'appEventSubscribers',
    permission: 'site:view',
    method: 'GET',
    path: '/api/apps/{app_slug}/events/{event_name}/',
    summary: "The app's subscribers to an event",
    params: schemas.appEventParams,
    responses: {
      200: json('The subscribers of the app', schemas.envelope(schemas.appEvent)),
      ...errors(400, 401, 403, 404),
    },
  },
] as const satisfies readonly RouteDef[];
