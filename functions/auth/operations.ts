import { checkCredentials, getUser } from '../../shared/accounts/users';
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
    return ok(await ctx.deps.tokens.issuePair(user));
  },

  async refreshToken(ctx: RequestContext<{ refresh: string }>) {
    const claims = await ctx.deps.tokens.verify(ctx.body.refresh, 'refresh');
    const user = await getUser(ctx.deps.store, claims.userId);
    if (!user?.is_active) throw new AuthenticationError('User not found or inactive.', 'user_inactive');
    return ok({ access: await ctx.deps.tokens.issue(user, 'access') });
  },

  async jwks(ctx) {
    return {
      status: 200,
      body: await ctx.deps.tokens.jwks(),
      headers: { 'cache-control': 'public, max-age=300' },
    };
  },
};
