import { defineGroup, tableReads, tableWrites } from '../../shared/api/group';
import { authRoutes } from '../../shared/auth/routes';
import { sessionRoutes } from '../../shared/auth/session-routes';
import { mfaRoutes } from '../../shared/mfa/routes';
import { recoveryRoutes } from '../../shared/recovery/routes';
import { socialRoutes } from '../../shared/social/routes';

/** The auth endpoint group: JWT login, refresh and the JWKS, password resets, then social apps and provider login. */
export const authManifest = defineGroup({
  name: 'auth',
  description:
    'JWT login, refresh and the JWKS; second factors; password resets; social apps and provider login',
  envelope: 'detail',
  changesAccess: true,
  routes: [...authRoutes, ...sessionRoutes, ...mfaRoutes, ...recoveryRoutes, ...socialRoutes],
  needs: {
    // Sign-in failure windows (Put, Update, Delete when a login succeeds), refresh families (Put, Update) and
    // browser sessions (Put; Delete on logout); social apps and their sentinels (transactions), login states
    // (Delete when used), users created by provider login with their link, links attached to existing users (a
    // ConditionCheck that the user is active).
    table: [...tableReads, ...tableWrites],
    // Seals and opens social apps' client secrets (shared/social), never the secret store's.
    // TOTP secrets of second factors (shared/mfa), under their own context app `~mfa`.
    secretsKey: 'social',
    signsTokens: true,
    // Provider sign-in creates users.
    createsUsers: true,
    // Reset links and the notice of a changed password (shared/recovery); a sign-in through a provider the platform
    // trusts can prove an account's address, and its owner is told what that ended (shared/social/proof.ts).
    mail: true,
  },
});
