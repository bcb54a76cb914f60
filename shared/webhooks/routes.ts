import { errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import { envelope } from '../events/schemas';
import * as schemas from './schemas';

const site = { group: 'events', scope: 'site' } as const;
const webhooksPath = '/api/apps/{app_slug}/webhooks/';
const webhookPath = `${webhooksPath}{webhook_id}/`;

/**
 * Webhook endpoints of an app and their deliveries (docs/events.md, "Record events and webhooks"): configuring
 * them is site configuration (`site:configure`), as registering functions is; reading them needs `site:view`.
 */
export const webhookRoutes = [
  {
    ...site,
    operationId: 'createWebhook',
    permission: 'site:configure',
    method: 'POST',
    path: webhooksPath,
    summary: 'Register an HTTPS endpoint for record events (its signing secret is shown once)',
    params: schemas.appParams,
    body: schemas.newWebhookBody,
    responses: {
      201: json('The new endpoint and its signing secret', envelope(schemas.newWebhook)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'listWebhooks',
    permission: 'site:view',
    method: 'GET',
    path: webhooksPath,
    summary: "The app's webhook endpoints",
    params: schemas.appParams,
    responses: {
      200: json('Every endpoint of the app', envelope(schemas.webhookList)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'getWebhook',
    permission: 'site:view',
    method: 'GET',
    path: webhookPath,
    summary: 'A webhook endpoint of the app',
    params: schemas.webhookParams,
    responses: { 200: json('The endpoint', envelope(schemas.webhook)), ...errors(400, 401, 403, 404) },
  },
  {
    ...site,
    operationId: 'updateWebhook',
    permission: 'site:configure',
    method: 'PATCH',
    path: webhookPath,
    summary: 'Change an endpoint: its URL, events, tables, or enable it again',
    params: schemas.webhookParams,
    body: schemas.webhookPatchBody,
    responses: { 200: json('The endpoint', envelope(schemas.webhook)), ...errors(400, 401, 403, 404) },
  },
  {
    ...site,
    operationId: 'deleteWebhook',
    permission: 'site:configure',
    method: 'DELETE',
    path: webhookPath,
    summary: 'Remove an endpoint with its pending deliveries',
    params: schemas.webhookParams,
    responses: {
      200: json('The endpoint is removed', envelope(schemas.emptyData)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'listWebhookDeliveries',
    permission: 'site:view',
    method: 'GET',
    path: `${webhookPath}deliveries/`,
    summary: "The endpoint's recent attempts and deliveries (failed ones with status=failed)",
    params: schemas.webhookParams,
    query: schemas.deliveriesQuery,
    responses: {
      200: json('Recent attempts and deliveries, newest first', envelope(schemas.deliveryReport)),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'replayWebhook',
    permission: 'site:configure',
    method: 'POST',
    path: `${webhookPath}replay/`,
    summary: 'Deliver again one event ({event_id}) or every event of the app since a time ({since})',
    params: schemas.webhookParams,
    body: schemas.replayBody,
    responses: {
      200: json('The deliveries queued', envelope(schemas.replayResult)),
      ...errors(400, 401, 403, 404),
    },
  },
] as const satisfies readonly RouteDef[];
