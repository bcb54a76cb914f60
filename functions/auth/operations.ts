import { checkCredentials } from '../../shared/accounts/users';
import { rotateSession, startSession } from '../../shared/auth/sessions';
import { AuthenticationError } from '../../shared/errors';
import { type Operations, ok, type RequestContext } from '../../shared/http/context';

type Credentials = { username: string; password: string };

export const authOperations: Operations = {
  async obtainToken(ctx: RequestContext<Credentials>) {
    const user = await checkCredentials(ctx.deps, ctx.body.username, ctx.body.password);
    if (!user)
      throw new AuthenticationError(
        'No active account found with the given credentials',
        'no_active_account',
      );
    return ok(await startSession(ctx.deps, user));
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
