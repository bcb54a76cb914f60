import type { Operations } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import type { pageRoutes } from '../../shared/pages/routes';
import { pageAsset } from './assets';
import { consoleAsset, consolePage } from './console';
import {
  accountPage,
  invitationPage,
  passwordResetPage,
  signInCallbackPage,
  signInPage,
  signUpPage,
  verifyEmailPage,
} from './pages';
import { siteOperations } from './site';

export const pageOperations: Operations = {
  invitationPage,
  signInPage,
  signInCallbackPage,
  passwordResetPage,
  signUpPage,
  verifyEmailPage,
  accountPage,

  async pageAsset(ctx) {
    return {
      status: 200,
      raw: pageAsset(ctx.params.asset),
      headers: { 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
    };
  },

  async consolePage() {
    return consolePage();
  },

  async consoleAsset(ctx) {
    return consoleAsset(ctx.params.asset);
  },

  siteName: siteOperations.siteName,
} satisfies TypedOperations<typeof pageRoutes>;
