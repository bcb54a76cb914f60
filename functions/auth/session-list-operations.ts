import { getSessionUser } from '../../shared/accounts/users';
import { sessionHashesOf } from '../../shared/auth/browser-sessions';
import {
  type CurrentSession,
  endOtherSessions,
  endSession,
  listSessions,
} from '../../shared/auth/session-list';
import type { sessionRoutes } from '../../shared/auth/session-routes';
import { bearerToken } from '../../shared/auth/tokens';
import { currentUser, type RequestContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';

type Ctx = RequestContext<unknown, unknown, unknown>;

/** The caller's own session: its access token's family (verified, so cached), or its cookies' sessions. */
async function currentOf(ctx: Ctx): Promise<CurrentSession> {
  const token = ctx.headers.authorization ? bearerToken(ctx.headers.authorization) : undefined;
  if (token) return { family: (await ctx.deps.tokens.verify(token, 'access')).family, browserHashes: [] };
  return { browserHashes: sessionHashesOf(ctx.headers) };
}

/** The user's current token version: sessions from before it are ended and not listed. */
async function who(ctx: Ctx) {
  const user = currentUser(ctx);
  const token = ctx.headers.authorization ? bearerToken(ctx.headers.authorization) : undefined;
  const version = token ? (await ctx.deps.tokens.verify(token, 'access')).tokenVersion : undefined;
  return { id: user.id, tokenVersion: version ?? (await storedVersion(ctx, user.id)) };
}

async function storedVersion(ctx: Ctx, userId: number): Promise<number> {
  return (await getSessionUser(ctx.deps.store, userId))?.token_version ?? 0;
}

export const sessionListOperations = {
  async listSessions(ctx) {
    const results = await listSessions(ctx.deps, await who(ctx), await currentOf(ctx));
    return { status: 200, body: { results }, headers: { 'cache-control': 'no-store' } };
  },

  async endSession(ctx) {
    await endSession(ctx.deps, currentUser(ctx).id, ctx.params.session_id);
    return { status: 204 };
  },

  async endOtherSessions(ctx) {
    return {
      status: 200,
      body: { ended: await endOtherSessions(ctx.deps, await who(ctx), await currentOf(ctx)) },
    };
  },
} satisfies TypedOperations<typeof sessionRoutes>;
