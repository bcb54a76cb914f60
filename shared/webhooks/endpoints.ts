import { randomBytes } from 'node:crypto';
import type { App } from '../accounts/model';
import type { Config } from '../config';
import { BadRequestError, NotFoundError, ValidationError } from '../errors';
import { open, type Sealed, seal } from '../keys/envelope';
import type { Keys } from '../keys/keys';
import type { Sql } from '../sql/client';
import { urlProblem } from './policy';
import { webhookLimits } from './schemas';

/**
 * Webhook endpoints of an app, in PostgreSQL beside the outbox (platform.webhook_endpoints): a record write's own
 * statement sees which endpoints listen, with no other store asked. The signing secret is sealed with the secret
 * store's keys (shared/keys/envelope.ts) under the endpoint's own context, shown once at creation.
 */

export interface EndpointRow {
  id: string;
  site: string;
  app_id: string;
  app_slug: string;
  url: string;
  events: string[];
  tables: string[];
  secret: Sealed;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface EndpointDeps {
  readonly keys: Keys;
  readonly config: Pick<Config, 'runtime' | 'socialLogin' | 'webhooks'>;
}

/** No app slug starts with `~`, so the secret store never makes this context (infra/secrets-key.ts). */
const keyContext = (site: string, appId: number | string, endpointId: number | string) => ({
  site,
  app: '~webhooks',
  key: `${appId}:${endpointId}`,
});

export function endpointView(row: EndpointRow) {
  return {
    id: Number(row.id),
    url: row.url,
    events: row.events,
    tables: row.tables,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    app_id: Number(row.app_id),
    app_slug: row.app_slug,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

async function checkUrl(url: string, deps: EndpointDeps): Promise<void> {
  const problem = await urlProblem(url, deps.config);
  if (problem) throw ValidationError.field('url', `url: ${problem}.`);
}

/** A fresh Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function createEndpoint(
  sql: Sql,
  deps: EndpointDeps,
  site: string,
  app: App,
  body: { url: string; events: readonly string[]; tables: readonly string[] },
): Promise<{ row: EndpointRow; secret: string }> {
  await checkUrl(body.url, deps);
  const secret = newSecret();
  return (await sql.begin(async (tx) => {
    // Serialises creations of one app, so its limit holds under parallel requests.
    await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`webhooks:${site}:${app.id}`}, 0))`;
    const [{ count }] = (await tx`SELECT count(*)::int AS count FROM platform.webhook_endpoints
      WHERE site = ${site} AND app_id = ${app.id}`) as unknown as [{ count: number }];
    if (count >= webhookLimits.endpointsPerApp)
      throw new BadRequestError({
        code: 'webhook_limit',
        message: `An app has at most ${webhookLimits.endpointsPerApp} webhook endpoints.`,
      });
    const [{ id }] =
      (await tx`SELECT nextval(pg_get_serial_sequence('platform.webhook_endpoints', 'id')) AS id`) as unknown as [
        { id: string },
      ];
    const sealed = await seal(deps.keys, secret, keyContext(site, app.id, id));
    const [row] = (await tx`INSERT INTO platform.webhook_endpoints
      (id, site, app_id, app_slug, url, events, tables, secret)
      VALUES (${id}, ${site}, ${app.id}, ${app.slug}, ${body.url}, ${[...body.events]}, ${[...body.tables]}, ${tx.json(sealed as never)})
      RETURNING *`) as unknown as [EndpointRow];
    return { row, secret };
  })) as { row: EndpointRow; secret: string };
}

export async function listEndpoints(sql: Sql, site: string, app: App): Promise<EndpointRow[]> {
  return (await sql`SELECT * FROM platform.webhook_endpoints WHERE site = ${site} AND app_id = ${app.id}
    ORDER BY id`) as unknown as EndpointRow[];
}

/** The app's endpoint; 404 for any other (another app's or site's is answered as one that does not exist). */
export async function getEndpoint(sql: Sql, site: string, app: App, id: number): Promise<EndpointRow> {
  const [row] = (await sql`SELECT * FROM platform.webhook_endpoints
    WHERE id = ${id} AND site = ${site} AND app_id = ${app.id}`) as unknown as EndpointRow[];
  if (!row) throw new NotFoundError({ code: 'webhook_not_found', message: `Webhook ${id} does not exist.` });
  return row;
}

export async function updateEndpoint(
  sql: Sql,
  deps: EndpointDeps,
  site: string,
  app: App,
  id: number,
  body: { url?: string; events?: readonly string[]; tables?: readonly string[]; enabled?: boolean },
): Promise<EndpointRow> {
  if (body.url !== undefined) await checkUrl(body.url, deps);
  const current = await getEndpoint(sql, site, app, id);
  const enabled = body.enabled ?? current.enabled;
  const [row] = (await sql`UPDATE platform.webhook_endpoints SET
      url = ${body.url ?? current.url},
      events = ${body.events ? [...body.events] : current.events},
      tables = ${body.tables ? [...body.tables] : current.tables},
      enabled = ${enabled},
      disabled_reason = ${enabled ? null : body.enabled === false ? 'disabled by the app' : current.disabled_reason},
      failing_since = ${enabled && !current.enabled ? null : current.failing_since},
      updated_at = now()
    WHERE id = ${id} AND site = ${site} AND app_id = ${app.id} RETURNING *`) as unknown as EndpointRow[];
  if (!row) throw new NotFoundError({ code: 'webhook_not_found', message: `Webhook ${id} does not exist.` });
  return row;
}

/** Removes the endpoint with its deliveries and attempts (ON DELETE CASCADE). */
export async function deleteEndpoint(sql: Sql, site: string, app: App, id: number): Promise<void> {
  const rows = await sql`DELETE FROM platform.webhook_endpoints
    WHERE id = ${id} AND site = ${site} AND app_id = ${app.id} RETURNING id`;
  if (rows.length === 0)
    throw new NotFoundError({ code: 'webhook_not_found', message: `Webhook ${id} does not exist.` });
}

/** The endpoint's signing secret, for a delivery. */
export async function endpointSecret(
  keys: Keys,
  row: Pick<EndpointRow, 'id' | 'site' | 'app_id' | 'secret'>,
) {
  return (await open(keys, row.secret, keyContext(row.site, row.app_id, row.id))) as string;
}
