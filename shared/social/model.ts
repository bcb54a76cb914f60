import { pad } from '../accounts/keys';
import type { Sealed } from '../keys/envelope';
import type { ProviderName } from './providers';

export const unverifiedLinkPrefix = 'SOCIALUNVERIFIED#';
export const accountLinkPrefix = 'SOCIALLINK#';

/** The keys of a social app's `settings` (docs/social-login.md). */
export interface SocialAppSettings {
  server_url?: string;
  icon?: string;
  auto_redirect?: boolean;
}

/** A social app as stored: the client secret only sealed (shared/keys envelope), never in clear. */
export interface StoredSocialApp {
  id: number;
  site: string;
  provider: ProviderName;
  /** `openid_connect` apps' own identifier; empty for the other providers. */
  provider_id: string;
  name: string;
  client_id: string;
  key: string;
  settings: SocialAppSettings;
  secret: Sealed;
  created_at: string;
  updated_at: string;
}

/** What `{provider}` in the login paths names: the `provider_id` of an OpenID Connect app, else the provider. */
export function providerKeyOf(app: Pick<StoredSocialApp, 'provider' | 'provider_id'>): string {
  return app.provider === 'openid_connect' ? app.provider_id : app.provider;
}

/** The literal that stands for the secret in every response but the create response. */
export const hiddenSecret = '***HIDDEN***';

/** DynamoDB keys of social login (docs/data-model.md). */
export const socialKeys = {
  app: (site: string, id: number) => ({ PK: `SITE#${site}`, SK: `SOCIALAPP#${pad(id)}` }),
  appPrefix: 'SOCIALAPP#',
  /** One app per provider key and site: the login paths name it. */
  providerKey: (site: string, providerKey: string) => ({
    PK: `SITE#${site}`,
    SK: `SOCIALKEY#${providerKey}`,
  }),
  /** The provider account `subject` of a provider key signs in as one user. */
  identity: (site: string, providerKey: string, subject: string) => ({
    PK: `SOCIAL#${site}#${providerKey}`,
    SK: `SUB#${subject}`,
  }),
  identityPartition: (site: string, providerKey: string) => `SOCIAL#${site}#${providerKey}`,
  /**
   * Beside a user that a first provider login made with an address the provider did not verify: where that link
   * is, so that whoever proves the address later (an invitation's acceptance) can end it.
   */
  unverifiedLink: (userId: number, site: string, providerKey: string, subject: string) => ({
    PK: `USER#${userId}`,
    SK: `${unverifiedLinkPrefix}${site}#${providerKey}#${subject}`,
  }),
  /**
   * Beside a user, one per provider account linked to it (the caller's `/api/auth/social-accounts/`): `id`, `site`,
   * `provider_key`, `subject`, `email`, `created_at` and `link` (the link's key). Written and deleted with the link.
   */
  account: (userId: number, id: number) => ({ PK: `USER#${userId}`, SK: `${accountLinkPrefix}${pad(id)}` }),
  /** A login started by the redirect endpoint, consumed once by the token endpoint. */
  loginState: (state: string) => ({ PK: `SOCIALSTATE#${state}`, SK: 'STATE' }),
} as const;
