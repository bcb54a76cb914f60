import { publicUser } from '../../shared/accounts/model';
import { keepCurrentBrowserSession, newBrowserSession } from '../../shared/auth/browser-sessions';
import { requireTrustedOrigin } from '../../shared/auth/csrf';
import { confirmPassword } from '../../shared/auth/login';
import { familyPut, familyTokens, type NewFamily, newFamily } from '../../shared/auth/sessions';
import { NotFoundError, ValidationError } from '../../shared/errors';
import { currentUser } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import {
  confirmTotp,
  currentCodeMatches,
  enrolTotp,
  factorStatus,
  removeTotp,
} from '../../shared/mfa/factors';
import type { mfaRoutes } from '../../shared/mfa/routes';
import { completeSecondFactor } from '../../shared/mfa/second-factor';

/** The issuer an authenticator app shows beside the account name. */
const totpIssuer = 'Tenantbase';

/** Second factors (shared/mfa; docs/security.md, "Second factors"). */
export const mfaOperations = {
  async getMfaStatus(ctx) {
    return {
      status: 200,
      body: await factorStatus(ctx.deps, currentUser(ctx).id),
      headers: { 'cache-control': 'no-store' },
    };
  },

  async enrolTotp(ctx) {
    const user = currentUser(ctx);
    const body = await enrolTotp(ctx.deps, user, totpIssuer);
    return { status: 200, body, headers: { 'cache-control': 'no-store' } };
  },

  async confirmTotp(ctx) {
    const body = await confirmTotp(ctx.deps, currentUser(ctx).id, ctx.body.code);
    return { status: 200, body, headers: { 'cache-control': 'no-store' } };
  },

  /** The password (counted like a sign-in attempt) or a current code (counted by the code throttle). */
  async removeTotp(ctx) {
    const user = currentUser(ctx);
    const { password, code } = ctx.body;
    if ((password === undefined) === (code === undefined))
      throw ValidationError.field('password', 'Send either password or code.', 'mfa_proof_missing');
    const proven =
      password !== undefined
        ? await confirmPassword(ctx.deps, user.id, password, ctx.clientIp)
        : await currentCodeMatches(ctx.deps, user.id, code ?? '');
    if (!proven) {
      const field = password !== undefined ? 'password' : 'code';
      throw ValidationError.field(field, `The ${field} is not correct.`, 'mfa_proof_invalid');
    }
    if (!(await removeTotp(ctx.deps, user.id)))
      throw new NotFoundError({ code: 'mfa_not_enrolled', message: 'No second factor is set up.' });
    await keepCurrentBrowserSession(ctx.deps, ctx.headers, user.id);
    return { status: 204 };
  },

  /** One BatchGetItem and one transaction (the family written with the spent challenge): shared/mfa/second-factor.ts. */
  async authenticateMfa(ctx) {
    let started: NewFamily | undefined;
    const { user } = await completeSecondFactor(ctx.deps, ctx.body, 'jwt', (who, amr) => {
      started = newFamily(ctx.deps, who, amr, { ip: ctx.clientIp, userAgent: ctx.headers['user-agent'] });
      return familyPut(ctx.deps, started);
    });
    if (!started) throw new Error('second factor accepted without a session');
    const pair = await familyTokens(ctx.deps, user, started);
    return {
      status: 200,
      body: { ...pair, user: publicUser(user) },
      headers: { 'cache-control': 'no-store' },
    };
  },

  async authenticateMfaSession(ctx) {
    requireTrustedOrigin(ctx.deps.config, ctx.headers, 'allow');
    let started: ReturnType<typeof newBrowserSession> | undefined;
    const { user } = await completeSecondFactor(ctx.deps, ctx.body, 'session', (who) => {
      started = newBrowserSession(ctx.deps, who, ctx.headers, ctx.clientIp);
      return { Put: started.put };
    });
    if (!started) throw new Error('second factor accepted without a session');
    return {
      status: 200,
      body: { user: publicUser(user), expires_at: started.session.expiresAt },
      headers: { 'set-cookie': started.session.setCookie, 'cache-control': 'no-store' },
    };
  },
} satisfies TypedOperations<typeof mfaRoutes>;
