import { ok } from '../../shared/api/result';
import { endBrowserSession, startBrowserSession } from '../../shared/auth/browser-sessions';
import { requireTrustedOrigin } from '../../shared/auth/csrf';
import { checkSignIn, signIn } from '../../shared/auth/login';
import type { authRoutes } from '../../shared/auth/routes';
import { sessionIdsOf } from '../../shared/auth/session-cookie';
import { rotateSession } from '../../shared/auth/sessions';
import type { Operations } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';

export const authOperations: Operations = {
  /** Throttled per account and client address (shared/auth/login.ts): 401 for wrong credentials, 429 when locked. */
  async obtainToken(ctx) {
    return ok(await signIn(ctx.deps, ctx.body, ctx.clientIp, ctx.headers['user-agent']));
  },

  /** Rotates: the answer carries a new refresh token beside the access token, and the one presented is spent. */
  async refreshToken(ctx) {
    return ok(await rotateSession(ctx.deps, ctx.body.refresh));
  },

  /**
   * The browser's password login: the same checks and throttling as the JWT login, then a server-side session whose
   * id goes out only in the HttpOnly cookie. The Origin check refuses login forgery (a page signing a visitor in
   * to the page author's account); a client that sends no Origin at all is not a browser and may sign in.
   */
  async startBrowserSession(ctx) {
    requireTrustedOrigin(ctx.deps.config, ctx.headers, 'allow');
    const { token_version, ...user } = await checkSignIn(ctx.deps, ctx.body, ctx.clientIp, 'session');
    const session = await startBrowserSession(
      ctx.deps,
      { id: user.id, token_version },
      ctx.headers,
      ctx.clientIp,
    );
    return {
      status: 200,
      body: { user, expires_at: session.expiresAt },
      headers: { 'set-cookie': session.setCookie, 'cache-control': 'no-store' },
    };
  },

  /** Public, so that an expired session can still have its cookie cleared; cookie-bearing requests need the origin. */
  async endBrowserSession(ctx) {
    if (sessionIdsOf(ctx.headers.cookie).length > 0) requireTrustedOrigin(ctx.deps.config, ctx.headers);
    return { status: 204, headers: { 'set-cookie': await endBrowserSession(ctx.deps, ctx.headers) } };
  },

  async jwks(ctx) {
    return {
      status: 200,
      body: await ctx.deps.tokens.jwks(),
      headers: { 'cache-control': 'public, max-age=300' },
    };
  },
} satisfies TypedOperations<typeof authRoutes>;
