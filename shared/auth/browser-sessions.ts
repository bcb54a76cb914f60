import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { SessionUser } from '../accounts/model';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Config } from '../config';
import { AuthenticationError } from '../errors';
import type { Store } from '../store/store';
import { isConditionFailure } from '../store/writes';
import { isUnsafeMethod, requireTrustedOrigin } from './csrf';
import {
  clearedSessionCookie,
  isSessionId,
  secureCookie,
  sessionCookie,
  sessionIdsOf,
} from './session-cookie';
import { requireCurrentToken, sessionListing } from './sessions';

/**
 * Browser sessions: the `sessionid` cookie names a server-side session item (the SHA-256 of the id is its key, so
 * the table never holds a usable id), with an absolute expiry (`SESSION_SECONDS`) kept in the TTL attribute. The
 * item records the user's `token_version` when it started: a password change or a deactivation raises it, which
 * ends the user's sessions exactly as it ends their tokens, in the same check of the request pipeline.
 */
export type BrowserSessionDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly config: Config;
};

type Headers = Record<string, string | undefined>;

/** Who a request is, as the pipeline needs it: from a bearer token or from a browser session. */
export interface Credentials {
  userId: number;
  tokenVersion: number;
  /** Set when a browser session authenticated the request (its hashed id). */
  session?: string | undefined;
}

/** A session just started: the `Set-Cookie` value to send and when the session ends. */
export interface StartedBrowserSession {
  setCookie: string;
  expiresAt: string;
}

interface StoredBrowserSession {
  user_id: number;
  token_version: number;
  expires_at_epoch: number;
}

/** At most this many `sessionid` cookies of one request are looked up (a parent domain may add one). */
const maxCookiesTried = 2;

export const sessionKey = (hash: string) => ({ PK: `BSESSION#${hash}`, SK: 'SESSION' });
const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');

/** The hashes of the sessions a request's cookies name (the list of sessions marks them as the caller's own). */
export function sessionHashesOf(headers: Headers): string[] {
  return sessionIdsOf(headers.cookie).filter(isSessionId).slice(0, maxCookiesTried).map(hashOf);
}
const epochOf = (deps: BrowserSessionDeps) => Math.floor(deps.clock().getTime() / 1000);

function sessionNotValid(): AuthenticationError {
  return new AuthenticationError({
    message: 'The session has expired or ended: sign in again.',
    code: 'session_not_valid',
  });
}

/**
 * Starts a browser session for a user who just proved who it is (the password login, and the provider login when a
 * browser drives it). `headers` are the request's: they decide whether the cookie is marked Secure.
 */
export async function startBrowserSession(
  deps: BrowserSessionDeps,
  user: Pick<SessionUser, 'id' | 'token_version'>,
  headers: Headers,
  clientIp?: string | undefined,
): Promise<StartedBrowserSession> {
  const started = newBrowserSession(deps, user, headers, clientIp);
  await deps.store.doc.send(new PutCommand(started.put));
  return started.session;
}

/** A browser session not yet written: its conditional put (alone or in a transaction) and what to answer. */
export function newBrowserSession(
  deps: BrowserSessionDeps,
  user: Pick<SessionUser, 'id' | 'token_version'>,
  headers: Headers,
  clientIp?: string | undefined,
) {
  const id = randomBytes(32).toString('base64url');
  const seconds = deps.config.sessionSeconds;
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + seconds * 1000);
  const put = {
    TableName: deps.store.table,
    Item: {
      ...sessionKey(hashOf(id)),
      ...sessionListing(user.id, 'BSESSION', iso(now), { ip: clientIp, userAgent: headers['user-agent'] }),
      user_id: user.id,
      token_version: user.token_version,
      created_at: iso(now),
      expires_at: iso(expiresAt),
      expires_at_epoch: Math.floor(expiresAt.getTime() / 1000),
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  };
  const session: StartedBrowserSession = {
    setCookie: sessionCookie(id, seconds, secureCookie(deps.config, headers)),
    expiresAt: iso(expiresAt),
  };
  return { put, session };
}

async function liveSession(
  deps: BrowserSessionDeps,
  hash: string,
): Promise<StoredBrowserSession | undefined> {
  const result = await deps.store.doc.send(
    new GetCommand({ TableName: deps.store.table, Key: sessionKey(hash), ConsistentRead: true }),
  );
  const item = result.Item as StoredBrowserSession | undefined;
  // DynamoDB deletes expired items only eventually: the expiry is checked here.
  return item && item.expires_at_epoch > epochOf(deps) ? item : undefined;
}

/**
 * The credentials of a request's `sessionid` cookie, or null when it carries none. An unsafe method must come from a
 * trusted origin (403); an unknown, ended or expired session is a 401. One strongly consistent read, so a logout
 * counts everywhere at once.
 */
export async function sessionCredentials(
  deps: BrowserSessionDeps,
  method: string,
  headers: Headers,
): Promise<Credentials | null> {
  const ids = sessionIdsOf(headers.cookie);
  if (ids.length === 0) return null;
  if (isUnsafeMethod(method)) requireTrustedOrigin(deps.config, headers);
  for (const id of ids.filter(isSessionId).slice(0, maxCookiesTried)) {
    const hash = hashOf(id);
    const session = await liveSession(deps, hash);
    if (session) return { userId: session.user_id, tokenVersion: session.token_version, session: hash };
  }
  throw sessionNotValid();
}

/** Throws a 401 unless the credentials were issued for the user's current token version. */
export function requireCurrentCredentials(credentials: Credentials, user: { token_version?: number }): void {
  if (credentials.session === undefined) requireCurrentToken(credentials, user);
  else if (credentials.tokenVersion !== (user.token_version ?? 0)) throw sessionNotValid();
}

/** Ends the sessions a request's cookies name (logout); the `Set-Cookie` value that clears the cookie. */
export async function endBrowserSession(deps: BrowserSessionDeps, headers: Headers): Promise<string> {
  for (const id of sessionIdsOf(headers.cookie).filter(isSessionId).slice(0, maxCookiesTried)) {
    await deps.store.doc.send(
      new DeleteCommand({ TableName: deps.store.table, Key: sessionKey(hashOf(id)) }),
    );
  }
  return clearedSessionCookie(secureCookie(deps.config, headers));
}

async function currentTokenVersion(deps: BrowserSessionDeps, userId: number): Promise<number | undefined> {
  const result = await deps.store.doc.send(
    new GetCommand({
      TableName: deps.store.table,
      Key: keys.user(userId),
      ConsistentRead: true,
      ProjectionExpression: 'token_version',
    }),
  );
  return result.Item ? Number(result.Item.token_version ?? 0) : undefined;
}

/**
 * After users changed their own password from a browser, the session that did it goes on: it takes the user's new
 * token version, which the change raised to end every other session and token. Only a session of this user, and
 * only when the cookie (not a bearer token) authenticated the request.
 */
export async function keepCurrentBrowserSession(
  deps: BrowserSessionDeps,
  headers: Headers,
  userId: number,
): Promise<void> {
  if (headers.authorization) return;
  const ids = sessionIdsOf(headers.cookie).filter(isSessionId).slice(0, maxCookiesTried);
  if (ids.length === 0) return;
  const version = await currentTokenVersion(deps, userId);
  if (version === undefined) return;
  for (const id of ids) {
    try {
      await deps.store.doc.send(
        new UpdateCommand({
          TableName: deps.store.table,
          Key: sessionKey(hashOf(id)),
          UpdateExpression: 'SET token_version = :version',
          // Only a session that was current just before this change (a session ended earlier stays ended).
          ConditionExpression: 'user_id = :user AND token_version = :before AND expires_at_epoch > :now',
          ExpressionAttributeValues: {
            ':version': version,
            ':before': version - 1,
            ':user': userId,
            ':now': epochOf(deps),
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
