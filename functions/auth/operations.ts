import { signIn } from '../../shared/auth/login';
import { rotateSession } from '../../shared/auth/sessions';
import { type Operations, ok, type RequestContext } from '../../shared/http/context';

type Credentials = { username: string; password: string };

export const authOperations: Operations = {
  /** Throttled per account and client address (shared/auth/login.ts): 401 for wrong credentials, 429 when locked. */
  async obtainToken(ctx: RequestContext<Credentials>) {
    return ok(await signIn(ctx.deps, ctx.body, ctx.clientIp));
  },

  /** Rotates: the answer carries a new refresh token beside the access token, and the one presented is spent. */
  async refreshToken(ctx: RequestContext<{ refresh: string }>) {
    return ok(await rotateSession(ctx.deps, ctx.body.refresh));
  },

  async jwks(ctx) {
    return {
      status: 200,
      body: await ctx.deps.tokens.jwks(),
      headers: { 'cache-control': 'public, max-age=300' },
    };
  },
};
