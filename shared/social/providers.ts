/**
 * The login providers a site can configure (docs/social-login.md). `openid_connect` takes its endpoints from the
 * app's discovery document (`settings.server_url`), and a site may have any number of such apps, told apart by
 * `provider_id`; the others are fixed: OpenID Connect providers with a well-known discovery document, and plain
 * OAuth 2.0 providers whose user-info endpoint says who signed in.
 */

/** Who the provider says signed in, mapped to our fields. */
export interface ProviderIdentity {
  /** The provider's stable id of the account (`sub`, or the user id of an OAuth 2.0 API). */
  readonly subject: string;
  readonly email: string | undefined;
  /** Whether the provider asserts that the address belongs to the account (the linking rule depends on it). */
  readonly emailVerified: boolean;
  readonly firstName: string;
  readonly lastName: string;
}

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const idText = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

/** The standard OpenID Connect claims (ID token, or user info). */
export function oidcIdentity(claims: Json): ProviderIdentity {
  return {
    subject: idText(claims.sub),
    email: text(claims.email) || undefined,
    // Only a literal `true` counts: some providers send the string "true", which we do not trust blindly either.
    emailVerified: claims.email_verified === true,
    firstName: text(claims.given_name),
    lastName: text(claims.family_name),
  };
}

function splitName(name: string): { firstName: string; lastName: string } {
  const [first = '', ...rest] = name.trim().split(/\s+/);
  return { firstName: first, lastName: rest.join(' ') };
}

/**
 * Whether a provider's "verified" e-mail may attach a provider account to an existing user of that address
 * (docs/social-login.md, "Which providers vouch for an address"): only a provider whose issuer is fixed and well
 * known (no tenant chooses it) and whose own verification of the address can be relied on platform-wide.
 */
interface EmailTrust {
  readonly trustsEmail: boolean;
}

interface OidcProvider extends EmailTrust {
  readonly kind: 'oidc';
  readonly display: string;
  /** The discovery document; absent for `openid_connect`, whose apps name theirs in `settings.server_url`. */
  readonly discovery?: string;
  readonly scopes: readonly string[];
}

interface OAuth2Provider extends EmailTrust {
  readonly kind: 'oauth2';
  readonly display: string;
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  readonly userInfoUrl: string;
  readonly scopes: readonly string[];
  /** Maps the user-info answer (and, for GitHub, its e-mail list) to an identity. */
  readonly identity: (profile: Json, emails: readonly Json[]) => ProviderIdentity;
  /** A second endpoint that lists the account's e-mail addresses with their verification (GitHub). */
  readonly emailsUrl?: string;
}

export type ProviderDef = OidcProvider | OAuth2Provider;

function githubIdentity(profile: Json, emails: readonly Json[]): ProviderIdentity {
  const primary = emails.find((entry) => entry.primary === true) ?? emails.find((e) => e.verified === true);
  return {
    subject: idText(profile.id),
    email: text(primary?.email) || text(profile.email) || undefined,
    emailVerified: primary?.verified === true,
    ...splitName(text(profile.name)),
  };
}

export const providers = {
  // The tenant chooses the issuer (settings.server_url): it can assert any address, `email_verified` included.
  openid_connect: {
    kind: 'oidc',
    display: 'OpenID Connect',
    scopes: ['openid', 'email', 'profile'],
    trustsEmail: false,
  },
  google: {
    kind: 'oidc',
    display: 'Google',
    discovery: 'https://accounts.google.com/.well-known/openid-configuration',
    scopes: ['openid', 'email', 'profile'],
    // `email_verified: true`: Google proved the mailbox (Gmail and Workspace addresses are its own).
    trustsEmail: true,
  },
  gitlab: {
    kind: 'oidc',
    display: 'GitLab',
    discovery: 'https://gitlab.com/.well-known/openid-configuration',
    scopes: ['openid', 'email', 'profile'],
    // gitlab.com only (the issuer is fixed): `email_verified` is true once the address was confirmed by mail.
    trustsEmail: true,
  },
  github: {
    kind: 'oauth2',
    display: 'GitHub',
    authorizationUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userInfoUrl: 'https://api.github.com/user',
    emailsUrl: 'https://api.github.com/user/emails',
    scopes: ['read:user', 'user:email'],
    identity: githubIdentity,
    // The primary address of /user/emails with `verified: true`: GitHub confirmed it by mail.
    trustsEmail: true,
  },
  microsoft: {
    kind: 'oauth2',
    display: 'Microsoft',
    authorizationUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    userInfoUrl: 'https://graph.microsoft.com/oidc/userinfo',
    scopes: ['openid', 'email', 'profile'],
    // Entra ID lets tenant administrators set any address on an account ("nOAuth"): never taken as verified.
    identity: (profile) => ({ ...oidcIdentity(profile), emailVerified: false }),
    trustsEmail: false,
  },
  facebook: {
    kind: 'oauth2',
    display: 'Facebook',
    authorizationUrl: 'https://www.facebook.com/v19.0/dialog/oauth',
    tokenUrl: 'https://graph.facebook.com/v19.0/oauth/access_token',
    userInfoUrl: 'https://graph.facebook.com/v19.0/me?fields=id,email,first_name,last_name',
    scopes: ['email', 'public_profile'],
    // The Graph API asserts no verification of the address it returns.
    trustsEmail: false,
    identity: (profile) => ({
      subject: idText(profile.id),
      email: text(profile.email) || undefined,
      emailVerified: false,
      firstName: text(profile.first_name),
      lastName: text(profile.last_name),
    }),
  },
  discord: {
    kind: 'oauth2',
    display: 'Discord',
    authorizationUrl: 'https://discord.com/oauth2/authorize',
    tokenUrl: 'https://discord.com/api/oauth2/token',
    userInfoUrl: 'https://discord.com/api/users/@me',
    scopes: ['identify', 'email'],
    // `verified: true`: Discord confirmed the address by mail.
    trustsEmail: true,
    identity: (profile) => ({
      subject: idText(profile.id),
      email: text(profile.email) || undefined,
      emailVerified: profile.verified === true,
      ...splitName(text(profile.global_name) || text(profile.username)),
    }),
  },
} as const satisfies Record<string, ProviderDef>;

export type ProviderName = keyof typeof providers;

/** The provider identifiers in alphabetical order (the unknown-provider message lists them). */
export const providerNames = (Object.keys(providers) as ProviderName[]).sort();

export function isProviderName(value: string): value is ProviderName {
  return Object.hasOwn(providers, value);
}

/** The provider's definition, widened to the union. */
export function providerDef(name: ProviderName): ProviderDef {
  return providers[name];
}

/**
 * Whether this sign-in's address is one the platform trusts to attach the provider account to an existing user:
 * the provider is trusted for it and asserted that the address is verified.
 */
export function emailTrusted(name: ProviderName, identity: ProviderIdentity): boolean {
  return providerDef(name).trustsEmail && identity.emailVerified;
}

/**
 * Whether a sign-in page may send a visitor to this provider without a click (an app's `auto_redirect`): only when
 * the platform, not a tenant, fixed where the provider's sign-in lives (a well-known discovery document, or fixed
 * OAuth 2.0 endpoints). A site's own `openid_connect` provider names its authorization endpoint itself, any https
 * host, so the platform's page would lend its name to whatever is there: its page asks first, naming the host.
 */
export function signInHostFixed(name: string): boolean {
  if (!isProviderName(name)) return false;
  const def = providerDef(name);
  return def.kind === 'oauth2' || def.discovery !== undefined;
}
