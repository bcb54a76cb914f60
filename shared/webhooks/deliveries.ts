import { NotFoundError } from '../errors';
import type { Sql } from '../sql/client';
import type { EndpointRow } from './endpoints';

/** What an endpoint's deliveries look like to its app (docs/events.md, "Deliveries you can see"). */

/** Rows a report shows; a replay since a time queues at most this many events. */
export const deliveryLimits = { attemptsShown: 50, deliveriesShown: 100, replayEvents: 1000 } as const;

const iso = (value: unknown) =>
  value === null || value === undefined ? null : new Date(String(value)).toISOString();

export async function deliveryReport(
  sql: Sql,
  endpoint: EndpointRow,
  status?: 'pending' | 'delivered' | 'failed',
) {
  const [attempts, deliveries] = await Promise.all([
    sql`SELECT a.attempted_at, a.status_code, a.latency_ms, a.error, e.event_id
      FROM platform.webhook_attempts a
      JOIN platform.webhook_deliveries d ON d.id = a.delivery_id
      JOIN platform.record_events e ON e.id = d.event_row
      WHERE a.endpoint_id = ${endpoint.id} ORDER BY a.id DESC LIMIT ${deliveryLimits.attemptsShown}`,
    sql`SELECT d.id, e.event_id, e.event, e.table_name, e.record_key, d.status, d.attempts, d.next_attempt_at,
        d.created_at, d.last_status, d.last_error
      FROM platform.webhook_deliveries d JOIN platform.record_events e ON e.id = d.event_row
      WHERE d.endpoint_id = ${endpoint.id} AND (${status ?? null}::text IS NULL OR d.status = ${status ?? null})
      ORDER BY d.id DESC LIMIT ${deliveryLimits.deliveriesShown}`,
  ]);
  return {
    attempts: attempts.map((row) => ({
      time: iso(row.attempted_at) as string,
      status_code: row.status_code as number | null,
      latency_ms: row.latency_ms as number,
      error: row.error as string | null,
      event_id: row.event_id as string,
    })),
    deliveries: deliveries.map((row) => ({
      id: Number(row.id),
      event_id: row.event_id as string,
      event: row.event as string,
      table: row.table_name as string,
      record_key: row.record_key as string,
      status: row.status as 'pending' | 'delivered' | 'failed',
      attempts: row.attempts as number,
      next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
      created_at: iso(row.created_at) as string,
      last_status: row.last_status as number | null,
      last_error: row.last_error as string | null,
    })),
  };
}

/**
 * Queues the events again for the endpoint, as new deliveries (after any still pending for the same records):
 * one event of the app by its id (404 when the app has none), or every event of the app since a time that the
 * endpoint listens to, oldest first, at most `deliveryLimits.replayEvents`.
 */
export async function replay(
  sql: Sql,
  endpoint: EndpointRow,
  what: { event_id?: string; since?: string },
): Promise<number> {
  const rows = await sql`INSERT INTO platform.webhook_deliveries (endpoint_id, event_row, record_ref)
    SELECT ${endpoint.id}, e.id, e.table_name || ':' || e.record_key
    FROM platform.record_events e
    WHERE e.site = ${endpoint.site} AND e.app_id = ${endpoint.app_id}
      AND (${what.event_id ?? null}::uuid IS NULL OR e.event_id = ${what.event_id ?? null}::uuid)
      AND (${what.since ?? null}::timestamptz IS NULL OR (e.created_at >= ${what.since ?? null}::timestamptz
        AND e.table_name = ANY (${endpoint.tables}) AND e.event = ANY (${endpoint.events})))
    ORDER BY e.id LIMIT ${deliveryLimits.replayEvents}
    RETURNING 1`;
  if (what.event_id && rows.length === 0)
    throw new NotFoundError({ code: 'event_not_found', message: `Event ${what.event_id} does not exist.` });
  return rows.length;
}
