import { Webhook } from 'standardwebhooks';
import type { Config } from '../config';
import type { Keys } from '../keys/keys';
import type { Logger } from '../log';
import { outboundFetch } from '../social/outbound';
import type { Sql } from '../sql/client';
import { type EndpointRow, endpointSecret } from './endpoints';
import { webhookPolicy } from './policy';

/**
 * The dispatcher (docs/events.md, "Delivery guarantees"): takes due deliveries from platform.webhook_deliveries,
 * POSTs each event signed by the Standard Webhooks scheme, and records the attempt. At least once: a delivery is
 * leased (its next attempt moved past the call's deadline) before the call and settled after it, so a dispatcher
 * that dies mid-call leaves it due again once the lease ends. In commit order per record: a delivery is only taken
 * when no earlier delivery of the same record to the same endpoint is still pending. Several dispatchers may run
 * (SKIP LOCKED); the cloud runs at most one at a time anyway.
 */

/** Seconds to wait after each failed attempt (Standard Webhooks' schedule): about 28 hours in all, then failed. */
export const retryDelaysSeconds = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

/** An endpoint failing (every attempt) for this long is disabled and the site's admins are told. */
export const disableAfterSeconds = 24 * 60 * 60;

/** Deliveries taken per round; bounds the calls in flight. */
const batchSize = 32;

/** A delivery's lease beyond the call's deadline. */
const leaseMarginSeconds = 5;

/** Bytes of an endpoint's answer kept as the attempt's error. */
const errorLength = 300;

export interface DispatcherDeps {
  readonly sql: Sql;
  readonly keys: Keys;
  readonly config: Pick<Config, 'runtime' | 'socialLogin' | 'webhooks'>;
  readonly log: Logger;
}

interface Claimed {
  delivery_id: string;
  attempts: number;
  endpoint_id: string;
  url: string;
  site: string;
  app_id: string;
  secret: EndpointRow['secret'];
  endpoint_updated_at: string;
  failing_since: string | null;
  event_id: string;
  event: string;
  app_slug: string;
  table_name: string;
  record_key: string;
  data: { record: unknown; previous: unknown; deletion?: string; actor: unknown };
  event_time: string;
}

/** The body of a delivery: the event as docs/events.md's catalogue shows it. */
export function payloadOf(claimed: Claimed): string {
  return JSON.stringify({
    id: claimed.event_id,
    event: claimed.event,
    time: new Date(claimed.event_time).toISOString(),
    site: claimed.site,
    app: claimed.app_slug,
    table: claimed.table_name,
    key: claimed.record_key,
    record: claimed.data.record,
    previous: claimed.data.previous,
    ...(claimed.data.deletion ? { deletion: claimed.data.deletion } : {}),
    actor: claimed.data.actor,
  });
}

/** Secrets of endpoints by id and version, bounded (a KMS Decrypt per delivery would cost every call). */
const secrets = new Map<string, string>();
const maxSecrets = 1000;

async function secretOf(keys: Keys, claimed: Claimed): Promise<string> {
  const cacheKey = `${claimed.endpoint_id}:${claimed.endpoint_updated_at}`;
  const known = secrets.get(cacheKey);
  if (known) return known;
  const secret = await endpointSecret(keys, {
    id: claimed.endpoint_id,
    site: claimed.site,
    app_id: claimed.app_id,
    secret: claimed.secret,
  });
  if (secrets.size >= maxSecrets) secrets.delete(secrets.keys().next().value as string);
  secrets.set(cacheKey, secret);
  return secret;
}

/** Leases the due deliveries, with their events and endpoints, in one statement. */
async function claim(deps: DispatcherDeps): Promise<Claimed[]> {
  const leaseSeconds = Math.ceil(deps.config.webhooks.callTimeoutMs / 1000) + leaseMarginSeconds;
  return (await deps.sql`WITH due AS (
      SELECT d.id FROM platform.webhook_deliveries d
      JOIN platform.webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled
      WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        AND NOT EXISTS (SELECT 1 FROM platform.webhook_deliveries p
          WHERE p.endpoint_id = d.endpoint_id AND p.record_ref = d.record_ref AND p.status = 'pending' AND p.id < d.id)
      ORDER BY d.next_attempt_at, d.id
      LIMIT ${batchSize}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE platform.webhook_deliveries d
    SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
    FROM due, platform.record_events e, platform.webhook_endpoints w
    WHERE d.id = due.id AND e.id = d.event_row AND w.id = d.endpoint_id
    RETURNING d.id AS delivery_id, d.attempts, w.id AS endpoint_id, w.url, w.site, w.app_id, w.secret,
      w.updated_at AS endpoint_updated_at, w.failing_since, e.event_id, e.event, e.app_slug, e.table_name,
      e.record_key, e.data, e.created_at AS event_time`) as unknown as Claimed[];
}

interface Outcome {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

async function send(deps: DispatcherDeps, claimed: Claimed): Promise<Outcome> {
  const started = performance.now();
  try {
    const body = payloadOf(claimed);
    const now = new Date();
    const signature = new Webhook(await secretOf(deps.keys, claimed)).sign(claimed.event_id, now, body);
    const timestamp = Math.floor(now.getTime() / 1000).toString();
    const response = await outboundFetch(claimed.url, webhookPolicy(deps.config), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': claimed.event_id,
        'webhook-timestamp': timestamp,
        'webhook-signature': signature,
      },
      body,
    });
    const latencyMs = Math.round(performance.now() - started);
    const ok = response.status >= 200 && response.status < 300;
    return {
      statusCode: response.status,
      latencyMs,
      error: ok ? null : response.text.slice(0, errorLength) || `HTTP ${response.status}`,
    };
  } catch (error) {
    return {
      statusCode: null,
      latencyMs: Math.round(performance.now() - started),
      error: (error instanceof Error ? error.message : String(error)).slice(0, errorLength),
    };
  }
}

/** Records the attempt and settles the delivery: delivered, due again after its backoff, or failed. */
async function settle(deps: DispatcherDeps, claimed: Claimed, outcome: Outcome): Promise<void> {
  const delivered = outcome.error === null;
  const delay = retryDelaysSeconds[claimed.attempts - 1];
  const status = delivered ? 'delivered' : delay === undefined ? 'failed' : 'pending';
  await deps.sql`WITH attempt AS (
      INSERT INTO platform.webhook_attempts (endpoint_id, delivery_id, status_code, latency_ms, error)
      VALUES (${claimed.endpoint_id}, ${claimed.delivery_id}, ${outcome.statusCode}, ${outcome.latencyMs}, ${outcome.error})
    )
    UPDATE platform.webhook_deliveries SET status = ${status}, last_status = ${outcome.statusCode},
      last_error = ${outcome.error},
      next_attempt_at = now() + make_interval(secs => ${delay ?? 0}),
      finished_at = ${status === 'pending' ? null : new Date().toISOString()}
    WHERE id = ${claimed.delivery_id}`;
  if (delivered) {
    if (claimed.failing_since)
      await deps.sql`UPDATE platform.webhook_endpoints SET failing_since = NULL WHERE id = ${claimed.endpoint_id}`;
    return;
  }
  deps.log.warn('webhook_delivery_failed', {
    endpoint_id: Number(claimed.endpoint_id),
    event_id: claimed.event_id,
    attempt: claimed.attempts,
    status_code: outcome.statusCode,
    error: outcome.error,
    final: status === 'failed',
  });
  // The first failure starts the endpoint's failing period; still failing a day later, the endpoint is disabled.
  const [disabled] = await deps.sql`UPDATE platform.webhook_endpoints SET
      failing_since = COALESCE(failing_since, now()),
      enabled = CASE WHEN failing_since < now() - make_interval(secs => ${disableAfterSeconds}) THEN false ELSE enabled END,
      disabled_reason = CASE WHEN failing_since < now() - make_interval(secs => ${disableAfterSeconds})
        THEN 'every delivery failed for 24 hours' ELSE disabled_reason END
    WHERE id = ${claimed.endpoint_id} RETURNING enabled, site, app_slug, url`;
  if (disabled && disabled.enabled === false)
    deps.log.error('webhook_endpoint_disabled', {
      endpoint_id: Number(claimed.endpoint_id),
      site: disabled.site,
      app: disabled.app_slug,
      reason: 'every delivery failed for 24 hours',
    });
}

/** One round: leases what is due, delivers it, settles it. The number of deliveries attempted. */
export async function dispatchOnce(deps: DispatcherDeps): Promise<number> {
  const claimed = await claim(deps);
  await Promise.all(
    claimed.map(async (delivery) => {
      const outcome = await send(deps, delivery);
      await settle(deps, delivery, outcome);
    }),
  );
  return claimed.length;
}

export interface RunningDispatcher {
  /** Asks for a round now (after a commit that wrote deliveries); rounds never overlap. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Runs rounds until stopped: right after one that found work, on `wake()`, and otherwise every `idleMs`. A round
 * that fails (the database restarting, say) is logged and the next one runs after the idle wait.
 */
export function startDispatcher(deps: DispatcherDeps, idleMs = 500): RunningDispatcher {
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const sleep = () =>
    new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(resolve, idleMs);
    }).finally(() => {
      clearTimeout(timer);
      wakeUp = undefined;
    });
  const loop = (async () => {
    while (!stopped) {
      let worked = 0;
      try {
        worked = await dispatchOnce(deps);
      } catch (error) {
        deps.log.error('webhook_dispatch_failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (worked === 0 && !stopped) await sleep();
    }
  })();
  return {
    wake: () => wakeUp?.(),
    stop: async () => {
      stopped = true;
      wakeUp?.();
      await loop;
    },
  };
}
