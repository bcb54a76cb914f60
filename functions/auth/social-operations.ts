import { created, noContent, ok } from '../../shared/api/result';
import { startBrowserSession } from '../../shared/auth/browser-sessions';
import { requireTrustedOrigin } from '../../shared/auth/csrf';
import { currentUser } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { deleteSocialAccount } from '../../shared/social/accounts';
import { createSocialApp, deleteSocialApp, getSocialApp, updateSocialApp } from '../../shared/social/apps';
import { checkSocialApp } from '../../shared/social/checks';
import { finishLogin, startLogin } from '../../shared/social/login';
import type { socialRoutes } from '../../shared/social/routes';
import { siteOf, socialReadOperations } from './social-read-operations';

/** Social apps and headless provider login (shared/social; docs/social-login.md). */
export const socialOperations = {
  ...socialReadOperations,

  async createSocialApp(ctx) {
    return created(await createSocialApp(ctx.deps, siteOf(ctx), ctx.body));
  },

  async getSocialApp(ctx) {
    return ok(await getSocialApp(ctx.deps, siteOf(ctx), ctx.params.id));
  },

  async updateSocialApp(ctx) {
    return ok(await updateSocialApp(ctx.deps, siteOf(ctx), ctx.params.id, ctx.body));
  },

  async deleteSocialApp(ctx) {
    return ok(await deleteSocialApp(ctx.deps, siteOf(ctx), ctx.params.id));
  },

  async checkSocialApp(ctx) {
    return ok(await checkSocialApp(ctx.deps, siteOf(ctx), ctx.params.id));
  },

  /**
   * The state, PKCE verifier and nonce stay server-side for ten minutes; only `state` goes to the client. A
   * signed-in caller starts a link to their account. Limited per client address (or user).
   */
  async providerRedirect(ctx) {
    return ok(
      await startLogin(ctx.deps, siteOf(ctx), ctx.params.provider, ctx.query.redirect_uri, {
        user: ctx.user,
        clientIp: ctx.clientIp,
      }),
    );
  },

  /**
   * Throttled per client address with the sign-in limiter (failed exchanges count). With `session: true` (a
   * browser drives the login) the Origin is checked before the code is spent, and a browser session starts too.
   */
  async providerToken(ctx) {
    if (ctx.body.session) requireTrustedOrigin(ctx.deps.config, ctx.headers, 'allow');
    const { answer, user } = await finishLogin(ctx.deps, siteOf(ctx), ctx.params.provider, ctx.body, {
      user: ctx.user,
      clientIp: ctx.clientIp,
      mfaFor: ctx.body.session ? 'session' : 'jwt',
    });
    if (!ctx.body.session) return ok(answer);
    const session = await startBrowserSession(ctx.deps, user, ctx.headers, ctx.clientIp);
    return {
      status: 200,
      body: answer,
      headers: { 'set-cookie': session.setCookie, 'cache-control': 'no-store' },
    };
  },

  async deleteSocialAccount(ctx) {
    await deleteSocialAccount(ctx.deps, currentUser(ctx).id, ctx.params.id);
    return noContent();
  },
} satisfies TypedOperations<typeof socialRoutes>;
