import { signIn } from '../../shared/auth/login';
import type { authRoutes } from '../../shared/auth/routes';
import { rotateSession } from '../../shared/auth/sessions';
import { type Operations, ok } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';

export const authOperations: Operations = {
  /** Throttled per account and client address (shared/auth/login.ts): 401 for wrong credentials, 429 when locked. */
  async obtainToken(ctx) {
    return ok(await signIn(ctx.deps, ctx.body, ctx.clientIp));
  },

  /** Rotates: the answer carries a new refresh token beside the access token, and the one presented is spent. */
  async refreshToken(ctx) {
    return ok(await rotateSession(ctx.deps, ctx.body.refresh));
  },

  async jwks(ctx) {
    return {
      status: 200,
      body: await ctx.deps.tokens.jwks(),
      headers: { 'cache-control': 'public, max-age=300' },
    };
  },
} satisfies TypedOperations<typeof authRoutes>;
