import { ok } from '../../shared/api/result';
import { currentUser } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { confirmEmailLink, requestEmailChange } from '../../shared/recovery/email-change';
import { confirmPasswordReset, requestPasswordReset } from '../../shared/recovery/password-reset';
import type { recoveryRoutes } from '../../shared/recovery/routes';
import { signUp } from '../../shared/recovery/sign-up';

/** Account recovery (shared/recovery): public, throttled, the same answer for every address. */
export const recoveryOperations = {
  async requestPasswordReset(ctx) {
    const answer = await requestPasswordReset(ctx.deps, ctx.log, ctx.body.email, ctx.clientIp);
    return { status: 202, body: answer, headers: { 'cache-control': 'no-store' } };
  },

  async confirmPasswordReset(ctx) {
    return ok(await confirmPasswordReset(ctx.deps, ctx.log, ctx.body, ctx.clientIp));
  },

  async signUp(ctx) {
    const answer = await signUp(ctx.deps, ctx.log, ctx.body, ctx.clientIp);
    return { status: 202, body: answer, headers: { 'cache-control': 'no-store' } };
  },

  async confirmEmailAddress(ctx) {
    return ok(await confirmEmailLink(ctx.deps, ctx.log, ctx.body.token));
  },

  async requestEmailChange(ctx) {
    const answer = await requestEmailChange(ctx.deps, ctx.log, currentUser(ctx).id, ctx.body, ctx.clientIp);
    return { status: 202, body: answer, headers: { 'cache-control': 'no-store' } };
  },
} satisfies TypedOperations<typeof recoveryRoutes>;
