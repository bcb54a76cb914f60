import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SessionUser } from '../accounts/model';
import { getSessionUser } from '../accounts/users';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Config } from '../config';
import { AuthenticationError } from '../errors';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { isConditionFailure } from '../store/writes';
import type { TokenClaims, TokenPair, TokenService } from './tokens';

/**
 * Sign-in sessions. Every token carries the user's `token_version`, which a password change or a deactivation
 * raises, so earlier tokens die at once. Each sign-in starts a refresh-token family: an item that names the one
 * refresh token of the family that may still be used. Refreshing rotates it with a conditional write; presenting
 * a refresh token that was already rotated (a stolen copy, or a replay) revokes the whole family.
 */
export type SessionDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly tokens: TokenService;
  readonly config: Config;
  readonly log: Logger;
};

const familyKey = (family: string) => ({ PK: `REFRESH#${family}`, SK: 'FAMILY' });

/** Whether a token was issued for the user's current token version (pure; called for every bearer request). */
export function tokenIsCurrent(
  claims: Pick<TokenClaims, 'tokenVersion'>,
  user: { token_version?: number },
): boolean {
  return claims.tokenVersion === (user.token_version ?? 0);
}

function invalidToken(): AuthenticationError {
  return new AuthenticationError({
    message: 'Given token not valid for any token type',
    code: 'token_not_valid',
  });
}

/** Throws the 401 of an invalid token unless the token is current for the user. */
export function requireCurrentToken(
  claims: Pick<TokenClaims, 'tokenVersion'>,
  user: { token_version?: number },
): void {
  if (!tokenIsCurrent(claims, user)) throw invalidToken();
}

function epoch(deps: SessionDeps): number {
  return Math.floor(deps.clock().getTime() / 1000);
}

/** A new refresh family, not yet written: its item (to put alone or in a transaction) and its first token's id. */
export interface NewFamily {
  readonly item: Record<string, unknown>;
  readonly family: string;
  readonly jti: string;
  readonly amr: readonly string[];
}

/** Where a sign-in came from, as its owner sees it in the list of sessions (shared/auth/session-list.ts). */
export interface SessionClient {
  readonly ip?: string | undefined;
  readonly userAgent?: string | undefined;
}

/** The longest user agent kept (longer ones are cut): the list of sessions shows it, nothing decides on it. */
export const userAgentLimit = 256;

/** The GSI1 entry of a user's sessions, and where each came from: the item attributes of both kinds. */
export function sessionListing(userId: number, kind: string, createdAt: string, client: SessionClient) {
  return {
    GSI1PK: `USER#${userId}#SESSIONS`,
    GSI1SK: `${createdAt}#${kind}`,
    ...(client.ip ? { client_ip: client.ip.slice(0, 64) } : {}),
    ...(client.userAgent ? { user_agent: client.userAgent.slice(0, userAgentLimit) } : {}),
  };
}

/** The refresh family a sign-in starts; `amr` says how the user signed in and stays with every rotation. */
export function newFamily(
  deps: SessionDeps,
  user: SessionUser,
  amr: readonly string[],
  client: SessionClient = {},
): NewFamily {
  const family = randomUUID();
  const jti = randomUUID();
  const createdAt = iso(deps.clock());
  const item = {
    ...familyKey(family),
    ...sessionListing(user.id, 'REFRESH', createdAt, client),
    user_id: user.id,
    token_version: user.token_version,
    current_jti: jti,
    amr: [...amr],
    created_at: createdAt,
    last_used_at: createdAt,
    expires_at_epoch: epoch(deps) + deps.config.refreshTokenSeconds,
  };
  return { item, family, jti, amr };
}

/** The put of a new family's item, for a transaction (TransactWriteItems). */
export function familyPut(deps: SessionDeps, started: NewFamily) {
  return { Put: { TableName: deps.store.table, Item: started.item } };
}

/** The token pair of a family whose item was written. */
export function familyTokens(deps: SessionDeps, user: SessionUser, started: NewFamily): Promise<TokenPair> {
  return deps.tokens.issuePair(user, { jti: started.jti, family: started.family, amr: started.amr });
}

/**
 * Starts a session for a user who just proved who it is: a new refresh family and a token pair. `amr` (RFC 8176)
 * says how: `pwd` a password, `fed` a provider, with `otp` and `mfa` once a second factor was given too.
 */
export async function startSession(
  deps: SessionDeps,
  user: SessionUser,
  amr: readonly string[] = ['pwd'],
  client: SessionClient = {},
): Promise<TokenPair> {
  const started = newFamily(deps, user, amr, client);
  await deps.store.doc.send(new PutCommand({ TableName: deps.store.table, Item: started.item }));
  return familyTokens(deps, user, started);
}

/** Trades a refresh token for a new pair; a rotated, revoked or stale refresh token is a 401. */
export async function rotateSession(deps: SessionDeps, refresh: string): Promise<TokenPair> {
  const claims = await deps.tokens.verify(refresh, 'refresh');
  if (!claims.family) throw invalidToken();
  const user = await getSessionUser(deps.store, claims.userId);
  if (!user?.is_active)
    throw new AuthenticationError({ message: 'User not found or inactive.', code: 'user_inactive' });
  requireCurrentToken(claims, user);
  const jti = randomUUID();
  let amr: string[] = [];
  try {
    const result = await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: familyKey(claims.family),
        UpdateExpression:
          'SET current_jti = :next, rotated_at = :now, last_used_at = :now, expires_at_epoch = :expires',
        ConditionExpression:
          'current_jti = :presented AND user_id = :user AND attribute_not_exists(revoked_at)',
        ExpressionAttributeValues: {
          ':next': jti,
          ':presented': claims.jti,
          ':user': user.id,
          ':now': iso(deps.clock()),
          ':expires': epoch(deps) + deps.config.refreshTokenSeconds,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const stored = result.Attributes?.amr;
    amr = Array.isArray(stored) ? stored.filter((value): value is string => typeof value === 'string') : [];
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    await revokeFamily(deps, claims.family);
    deps.log.warn('refresh token reuse', { event: 'refresh_reuse', user_id: user.id, family: claims.family });
    throw invalidToken();
  }
  return deps.tokens.issuePair(user, { jti, family: claims.family, amr });
}

/** Marks a family revoked (kept until its TTL so that later replays are refused too). */
export async function revokeFamily(deps: SessionDeps, family: string): Promise<void> {
  try {
    await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: familyKey(family),
        UpdateExpression: 'SET revoked_at = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': iso(deps.clock()) },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
