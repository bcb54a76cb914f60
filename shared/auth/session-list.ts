import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Store } from '../store/store';
import { isConditionFailure } from '../store/writes';
import { sessionKey } from './browser-sessions';

/**
 * A user's sessions (issue 39, item 9): the refresh-token families of sign-ins and the browser sessions, each
 * with when it started, when it was last used (a family: its last refresh; a browser session: its start, as
 * requests do not write), the client address and the user agent of its sign-in. Listed from GSI1
 * (`USER#<id>#SESSIONS`), newest first, at most `sessionListLimit`; ended ones (revoked, expired, or from before
 * the user's current token version: a password change, a reset, a factor removal) are left out.
 */
export type SessionListDeps = { readonly store: Store; readonly clock: Clock };

/** At most this many sessions are listed (and ended by "end the others"): a bound on one answer's reads. */
export const sessionListLimit = 100;

export interface ListedSession {
  id: string;
  kind: 'refresh' | 'browser';
  created_at: string;
  last_used_at: string;
  client_ip: string | null;
  user_agent: string | null;
  current: boolean;
}

/** What identifies the caller's own session: the family of its access token, or its cookies' session hashes. */
export interface CurrentSession {
  family?: string | undefined;
  browserHashes: readonly string[];
}

const familyId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const browserId = /^[0-9a-f]{64}$/;

async function liveItems(deps: SessionListDeps, userId: number, tokenVersion: number) {
  const result = await deps.store.doc.send(
    new QueryCommand({
      TableName: deps.store.table,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': `USER#${userId}#SESSIONS` },
      // Newest first; ended families stay until their TTL, so twice the bound is read to fill it.
      ScanIndexForward: false,
      Limit: sessionListLimit * 2,
    }),
  );
  const now = Math.floor(deps.clock().getTime() / 1000);
  return (result.Items ?? [])
    .filter(
      (item) =>
        item.user_id === userId &&
        item.revoked_at === undefined &&
        Number(item.expires_at_epoch) > now &&
        Number(item.token_version ?? 0) === tokenVersion,
    )
    .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)))
    .slice(0, sessionListLimit);
}

function listed(item: Record<string, unknown>, current: CurrentSession): ListedSession {
  const pk = String(item.PK);
  const browser = pk.startsWith('BSESSION#');
  const id = pk.slice(pk.indexOf('#') + 1);
  return {
    id,
    kind: browser ? 'browser' : 'refresh',
    created_at: String(item.created_at),
    last_used_at: String(item.last_used_at ?? item.created_at),
    client_ip: typeof item.client_ip === 'string' ? item.client_ip : null,
    user_agent: typeof item.user_agent === 'string' ? item.user_agent : null,
    current: browser ? current.browserHashes.includes(id) : current.family === id,
  };
}

export async function listSessions(
  deps: SessionListDeps,
  user: { id: number; tokenVersion: number },
  current: CurrentSession,
): Promise<ListedSession[]> {
  return (await liveItems(deps, user.id, user.tokenVersion)).map((item) => listed(item, current));
}

/**
 * Ends one of the user's sessions by its id; whether it ended. An id that names no live session of the user
 * (ended already, never made, or another user's) ends nothing: the caller's DELETE is done either way, and the
 * answer says nothing of other users' sessions.
 */
export async function endSession(deps: SessionListDeps, userId: number, id: string): Promise<boolean> {
  try {
    if (familyId.test(id)) {
      await deps.store.doc.send(
        new UpdateCommand({
          TableName: deps.store.table,
          Key: { PK: `REFRESH#${id}`, SK: 'FAMILY' },
          UpdateExpression: 'SET revoked_at = :now',
          ConditionExpression: 'user_id = :user AND attribute_not_exists(revoked_at)',
          ExpressionAttributeValues: { ':now': iso(deps.clock()), ':user': userId },
        }),
      );
    } else if (browserId.test(id)) {
      await deps.store.doc.send(
        new DeleteCommand({
          TableName: deps.store.table,
          Key: sessionKey(id),
          ConditionExpression: 'user_id = :user',
          ExpressionAttributeValues: { ':user': userId },
        }),
      );
    } else return false;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
  return true;
}

/** Ends every listed session of the user but the caller's own; how many ended. */
export async function endOtherSessions(
  deps: SessionListDeps,
  user: { id: number; tokenVersion: number },
  current: CurrentSession,
): Promise<number> {
  const others = (await listSessions(deps, user, current)).filter((session) => !session.current);
  let ended = 0;
  for (const session of others) if (await endSession(deps, user.id, session.id)) ended++;
  return ended;
}
