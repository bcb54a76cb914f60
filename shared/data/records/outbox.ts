import type { Queryable } from '../common/fragments';
import type { DataTable, Row, TableScope } from '../tables/data-table';

/**
 * The transactional outbox of record events (docs/events.md, "Record events and webhooks"): the events of a write
 * are inserted by the write's own transaction, so a rolled-back write has none and a committed one always has
 * them. One statement per write: it inserts the events and, in the same statement, one delivery per listening
 * endpoint; when no endpoint of the app listens to the table it inserts nothing (the check is part of the
 * statement, so it is never stale).
 */

export const recordEventNames = ['POST_RECORD_CREATE', 'POST_RECORD_UPDATE', 'POST_RECORD_DELETE'] as const;
export type RecordEventName = (typeof recordEventNames)[number];

/** One record's change, as the write saw it. */
export type RecordChange =
  | { readonly event: 'POST_RECORD_CREATE'; readonly record: Row }
  | { readonly event: 'POST_RECORD_UPDATE'; readonly record: Row; readonly previous: Row }
  | {
      readonly event: 'POST_RECORD_DELETE';
      readonly previous: Row;
      /** Soft: the record is kept with `is_deleted = true` (it is `record`); hard: it is gone. */
      readonly deletion: 'soft' | 'hard';
      readonly record?: Row;
    };

/** SQLSTATE raised by `platform.webhooks_unlistened` (migration 110) when an endpoint listens. */
export const listenedState = 'TB001';

/** The fields a payload shows: a field marked `sensitive` in the table's schema is left out. */
function shown(table: DataTable, row: Row | undefined): Row | null {
  if (!row) return null;
  const out: Row = {};
  for (const field of table.visible)
    if (!field.sensitive && field.name in row) out[field.name] = row[field.name];
  return out;
}

/** The RETURNING item the single-statement insert adds: it fails the statement when an endpoint listens. */
export function unlistenedCheck(sql: Queryable, scope: TableScope, table: DataTable) {
  return sql`platform.webhooks_unlistened(${scope.site}, ${scope.app.id}, ${table.name})`;
}

/** Transactions that wrote events, until they end (`committedEvents`). */
const wroteEvents = new WeakSet<object>();
const commitListeners = new Set<() => void>();

/**
 * Calls `listener` after each commit that wrote record events in this process (the local dispatcher's wake-up,
 * so a delivery need not wait for its next round). Returns the function that removes it.
 */
export function onCommittedEvents(listener: () => void): () => void {
  commitListeners.add(listener);
  return () => commitListeners.delete(listener);
}

/** Told by the transaction's owner once `tx` has committed. */
export function committedEvents(tx: object | undefined): void {
  if (!tx || !wroteEvents.has(tx)) return;
  wroteEvents.delete(tx);
  for (const listener of commitListeners) listener();
}

/** Writes the events of a write's changes, in order, with the write's transaction `tx`. */
export async function recordChanges(
  tx: Queryable,
  scope: TableScope,
  table: DataTable,
  changes: readonly RecordChange[],
): Promise<void> {
  if (changes.length === 0) return;
  const keyName = table.key.name;
  const items = changes.map((change) => {
    const key = (change.record ?? (change as { previous: Row }).previous)[keyName];
    return {
      key: String(key),
      event: change.event,
      data: {
        record: shown(table, change.record),
        previous: shown(table, 'previous' in change ? change.previous : undefined),
        ...(change.event === 'POST_RECORD_DELETE' ? { deletion: change.deletion } : {}),
        actor: scope.actor ?? null,
      },
    };
  });
  const [written] = await tx`WITH listening AS (
      SELECT id, events FROM platform.webhook_endpoints
      WHERE site = ${scope.site} AND app_id = ${scope.app.id} AND enabled
        AND (cardinality(tables) = 0 OR ${table.name} = ANY (tables))
    ), added AS (
      INSERT INTO platform.record_events (site, app_id, app_slug, table_name, record_key, event, data)
      SELECT ${scope.site}, ${scope.app.id}, ${scope.app.slug}, ${table.name}, c.value->>'key', c.value->>'event', c.value->'data'
      FROM jsonb_array_elements(${tx.json(items as never)}::jsonb) WITH ORDINALITY AS c(value, position)
      WHERE EXISTS (SELECT 1 FROM listening l WHERE c.value->>'event' = ANY (l.events))
      ORDER BY c.position
      RETURNING id, event, record_key
    ), delivered AS (
      INSERT INTO platform.webhook_deliveries (endpoint_id, event_row, record_ref)
      SELECT l.id, a.id, ${`${table.name}:`} || a.record_key
      FROM added a JOIN listening l ON a.event = ANY (l.events)
      ORDER BY a.id, l.id
      RETURNING 1
    )
    SELECT count(*)::int AS deliveries FROM delivered`;
  if ((written?.deliveries ?? 0) > 0) wroteEvents.add(tx);
}

/**
 * Whether an endpoint of the app listens to the table now: the writes that need the records as they were
 * (updates, deletes, upserts) ask first, inside their transaction, and read those records only when one does.
 */
export async function listens(tx: Queryable, scope: TableScope, table: DataTable): Promise<boolean> {
  const [row] = await tx`SELECT EXISTS (SELECT 1 FROM platform.webhook_endpoints
      WHERE site = ${scope.site} AND app_id = ${scope.app.id} AND enabled
        AND (cardinality(tables) = 0 OR ${table.name} = ANY (tables))) AS listened`;
  return row?.listened === true;
}

/** A record's key as the outbox and the pairing of before and after compare it. */
export function keyText(table: DataTable, row: Row): string {
  return String(row[table.key.name]);
}
