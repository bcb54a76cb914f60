import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys as accountKeys } from '../accounts/keys';
import type { User } from '../accounts/model';
import { publicUser } from '../accounts/model';
import type { UserCreationEvents } from '../accounts/user-creation-events';
import type { UserCreationDeps } from '../accounts/users';
import { loginPolicies } from '../auth/login';
import { startSession } from '../auth/sessions';
import type { MfaBinding, TokenService } from '../auth/tokens';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { AppError, BadRequestError, NotFoundError, ValidationError } from '../errors';
import { open } from '../keys/envelope';
import type { Keys } from '../keys/keys';
import { assertNotLocked, recordFailure } from '../limits/failures';
import { consumeCall } from '../limits/rate';
import type { Logger } from '../log';
import type { Mailer } from '../mail/mailer';
import { requireNoSecondFactor } from '../mfa/second-factor';
import type { Store } from '../store/store';
import { socialAccountOf } from './accounts';
import { isConfigured, secretContext } from './apps';
import {
  endpointsOf,
  IdTokenError,
  type ProviderEndpoints,
  providerFailure,
  verifyIdToken,
} from './endpoints';
import { linkIdentity, userForIdentity } from './identities';
import { providerKeyOf, type StoredSocialApp, socialKeys } from './model';
import { jsonObject, OutboundError, outboundFetch } from './outbound';
import { afterProof } from './proof';
import { emailTrusted, oidcIdentity, type ProviderIdentity, providerDef } from './providers';
import { appByProviderKey, takeItem } from './repository';

/**
 * Headless provider login (docs/social-login.md): the redirect endpoint starts a login (state, PKCE S256 and, for
 * OpenID Connect, a nonce, kept server-side for ten minutes); the token endpoint consumes that state once,
 * exchanges the code, learns who signed in (a verified ID token, or the user-info endpoint) and answers our own
 * token pair. Started by a signed-in user, the login links the provider account to that user instead (the state
 * records the user, and only that user may finish it). Starts are limited per client address (or user); failed
 * exchanges count against the sign-in limiter of the client address.
 */
export type SocialLoginDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly keys: Keys;
  readonly config: Config;
  readonly log: Logger;
  readonly tokens: TokenService;
  readonly events: UserCreationEvents;
  readonly mailer: Mailer;
};

const stateSeconds = 600;
const base64url = (bytes: Buffer) => bytes.toString('base64url');
const epoch = (deps: SocialLoginDeps) => Math.floor(deps.clock().getTime() / 1000);

interface LoginState {
  site: string;
  provider_key: string;
  app_id: number;
  code_verifier: string;
  nonce: string;
  redirect_uri: string;
  expires_at_epoch: number;
  /** An explicit link: the signed-in user who started it, the only one who may finish it. */
  user_id?: number;
}

async function configuredApp(
  deps: SocialLoginDeps,
  site: string,
  providerKey: string,
): Promise<StoredSocialApp> {
  const app = await appByProviderKey(deps.store, site, providerKey);
  if (!app) throw new NotFoundError({ message: 'Provider not found.', code: 'provider_not_found' });
  if (!isConfigured(app))
    throw new BadRequestError({
      code: 'provider_not_configured',
      message: 'This provider is not configured.',
    });
  return app;
}

/** A superuser's account may not be reachable through a provider whose issuer a tenant chose. */
function refuseTenantIssuerFor(user: Pick<User, 'is_superuser'>, app: StoredSocialApp): void {
  if (user.is_superuser && app.provider === 'openid_connect')
    throw new BadRequestError({
      code: 'link_refused',
      message: "A superuser's account cannot be linked to a site's own OpenID Connect provider.",
    });
}

/**
 * Starts a login: the provider's authorization URL and the state the token endpoint will need. With a signed-in
 * `user` the login links the provider account to that user. Each start counts against the caller's limit.
 */
export async function startLogin(
  deps: SocialLoginDeps,
  site: string,
  providerKey: string,
  redirectUri: string,
  caller: { user: Pick<User, 'id' | 'is_superuser'> | null; clientIp: string | undefined },
) {
  const subject = caller.user
    ? `user:${caller.user.id}`
    : caller.clientIp
      ? `ip:${caller.clientIp}`
      : undefined;
  if (subject)
    await consumeCall(
      deps,
      { scope: 'social-redirect', maxCalls: deps.config.socialLogin.redirectsPerMinute, windowSeconds: 60 },
      subject,
    );
  const app = await configuredApp(deps, site, providerKey);
  if (caller.user) refuseTenantIssuerFor(caller.user, app);
  const endpoints = await endpointsOf(app, deps.config);
  const state = base64url(randomBytes(32));
  const verifier = base64url(randomBytes(48));
  const nonce = base64url(randomBytes(24));
  const item: LoginState = {
    site,
    provider_key: providerKey,
    app_id: app.id,
    code_verifier: verifier,
    nonce,
    redirect_uri: redirectUri,
    expires_at_epoch: epoch(deps) + stateSeconds,
    ...(caller.user ? { user_id: caller.user.id } : {}),
  };
  await deps.store.doc.send(
    new PutCommand({ TableName: deps.store.table, Item: { ...socialKeys.loginState(state), ...item } }),
  );
  const url = new URL(endpoints.authorization);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.client_id);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', endpoints.scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', base64url(createHash('sha256').update(verifier).digest()));
  url.searchParams.set('code_challenge_method', 'S256');
  if (endpoints.kind === 'oidc') url.searchParams.set('nonce', nonce);
  return {
    authorization_url: url.toString(),
    state,
    expires_in: stateSeconds,
    link: caller.user !== null,
  };
}

/**
 * The stored state of this login, taken once; a 400 naming `state` when it is unknown, used or expired, or when it
 * links to a user other than the caller.
 */
async function takeState(
  deps: SocialLoginDeps,
  site: string,
  providerKey: string,
  state: string,
  callerId: number | undefined,
) {
  const item = (await takeItem(deps.store, socialKeys.loginState(state))) as LoginState | undefined;
  if (
    !item ||
    item.expires_at_epoch <= epoch(deps) ||
    item.site !== site ||
    item.provider_key !== providerKey
  )
    throw ValidationError.field(
      'state',
      'The login state is unknown, already used or expired.',
      'invalid_state',
    );
  // A link's state is worth an account: a leaked one is useless to anyone but its user.
  if (item.user_id !== undefined && item.user_id !== callerId)
    throw ValidationError.field(
      'state',
      "This login links a provider account to the user who started it: send that user's credentials.",
      'invalid_state',
    );
  return item;
}

async function providerJson(
  url: string,
  deps: SocialLoginDeps,
  init: Parameters<typeof outboundFetch>[2],
  what: string,
) {
  try {
    return await outboundFetch(url, deps.config, init);
  } catch (error) {
    if (error instanceof OutboundError) throw providerFailure(what, error.message);
    throw error;
  }
}

/** Trades the code for the provider's tokens (PKCE verifier, client authentication as the provider wants it). */
async function exchangeCode(
  deps: SocialLoginDeps,
  app: StoredSocialApp,
  endpoints: ProviderEndpoints,
  code: string,
  state: LoginState,
) {
  const secret = String(await open(deps.keys, app.secret, secretContext(app.site, app.id)));
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: state.redirect_uri,
    code_verifier: state.code_verifier,
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (endpoints.tokenAuth === 'basic') {
    const encode = (value: string) => encodeURIComponent(value);
    headers.authorization = `Basic ${Buffer.from(`${encode(app.client_id)}:${encode(secret)}`).toString('base64')}`;
  } else {
    form.set('client_id', app.client_id);
    form.set('client_secret', secret);
  }
  const response = await providerJson(
    endpoints.token,
    deps,
    { method: 'POST', headers, body: form.toString() },
    'token endpoint',
  );
  let body: Record<string, unknown> = {};
  try {
    body = jsonObject(response);
  } catch {
    if (response.status === 200) throw providerFailure('token endpoint', 'did not answer with JSON');
  }
  if (response.status === 200 && typeof body.access_token === 'string') return body;
  // Our own credentials refused is the site's configuration, not the caller's code.
  if (body.error === 'invalid_client' || body.error === 'unauthorized_client')
    throw providerFailure('token endpoint', 'refused the client id or secret of this app');
  if (body.error === 'bad_verification_code' || (response.status >= 400 && response.status < 500))
    throw ValidationError.field('code', 'The provider refused the code.', 'invalid_code');
  throw providerFailure('token endpoint', `answered with status ${response.status}`);
}

/** A user-info style answer (GitHub's e-mail list is an array); a 502 when it is not JSON. */
async function userInfo(deps: SocialLoginDeps, url: string, accessToken: string): Promise<unknown> {
  const response = await providerJson(
    url,
    deps,
    { headers: { authorization: `Bearer ${accessToken}` } },
    'user-info endpoint',
  );
  if (response.status !== 200)
    throw providerFailure('user-info endpoint', `answered with status ${response.status}`);
  try {
    return JSON.parse(response.text) as unknown;
  } catch {
    throw providerFailure('user-info endpoint', 'did not answer with JSON');
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

async function userInfoObject(deps: SocialLoginDeps, url: string, accessToken: string) {
  const value = await userInfo(deps, url, accessToken);
  if (!isObject(value)) throw providerFailure('user-info endpoint', 'did not answer with a JSON object');
  return value;
}

/** The account's e-mail addresses (GitHub); none when the list cannot be read (the address is then unverified). */
async function emailList(deps: SocialLoginDeps, url: string, accessToken: string) {
  try {
    const value = await userInfo(deps, url, accessToken);
    return Array.isArray(value) ? value.filter(isObject) : [];
  } catch (error) {
    if (error instanceof AppError) return [];
    throw error;
  }
}

/** Who signed in: the verified ID token (completed by user info when it carries no e-mail), or user info. */
async function identityOf(
  deps: SocialLoginDeps,
  app: StoredSocialApp,
  endpoints: ProviderEndpoints,
  tokens: Record<string, unknown>,
  state: LoginState,
): Promise<ProviderIdentity> {
  const accessToken = String(tokens.access_token);
  const def = providerDef(app.provider);
  if (def.kind === 'oauth2') {
    const profile = await userInfoObject(deps, def.userInfoUrl, accessToken);
    const emails = def.emailsUrl ? await emailList(deps, def.emailsUrl, accessToken) : [];
    return def.identity(profile, emails);
  }
  if (typeof tokens.id_token !== 'string') throw providerFailure('token endpoint', 'sent no ID token');
  let claims: Record<string, unknown>;
  try {
    claims = await verifyIdToken(tokens.id_token, endpoints, app.client_id, state.nonce, deps.config);
  } catch (error) {
    if (error instanceof IdTokenError)
      throw new BadRequestError({
        code: 'invalid_id_token',
        message: `The provider's ID token was refused: ${error.message}.`,
      });
    throw error;
  }
  if (claims.email === undefined && endpoints.userInfo) {
    const info = await userInfoObject(deps, endpoints.userInfo, accessToken);
    // User info about another account than the ID token's is ignored.
    if (info.sub === claims.sub)
      claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
  }
  return oidcIdentity(claims);
}

/**
 * Finishes a login: our access and refresh tokens, the user, and whether the login created it; for a link, also
 * the new `social_account`.
 */
export async function finishLogin(
  deps: SocialLoginDeps & UserCreationDeps,
  site: string,
  providerKey: string,
  input: { code: string; state: string },
  caller: {
    user: Pick<User, 'id' | 'is_superuser'> | null;
    clientIp: string | undefined;
    /** Where the sign-in ends: an account with a second factor is answered 401 `mfa_required` bound to it. */
    mfaFor: MfaBinding;
  },
) {
  const { clientIp } = caller;
  const policy = loginPolicies(deps.config).ip;
  if (clientIp) await assertNotLocked(deps, policy, clientIp);
  let identity: ProviderIdentity;
  let app: StoredSocialApp;
  let state: LoginState;
  try {
    state = await takeState(deps, site, providerKey, input.state, caller.user?.id);
    app = await configuredApp(deps, site, providerKey);
    if (app.id !== state.app_id)
      throw ValidationError.field('state', 'The login state is for another provider.', 'invalid_state');
    const endpoints = await endpointsOf(app, deps.config);
    const tokens = await exchangeCode(deps, app, endpoints, input.code, state);
    identity = await identityOf(deps, app, endpoints, tokens, state);
  } catch (error) {
    if (clientIp && error instanceof AppError && error.status === 400)
      await recordFailure(deps, policy, clientIp);
    if (error instanceof AppError)
      deps.log.warn('provider sign-in failed', {
        event: 'social_login_failed',
        provider: providerKey,
        code: error.code,
        client_ip: clientIp,
      });
    throw error;
  }
  const target = { site, providerKey: providerKeyOf(app), appId: app.id };
  const login = { identity, trusted: emailTrusted(app.provider, identity) };
  if (state.user_id !== undefined && caller.user) {
    refuseTenantIssuerFor(caller.user, app);
    const user = await linkIdentity(deps, target, login, state.user_id);
    const pair = await startSession(deps, user, ['fed'], { ip: clientIp });
    const link = socialKeys.identity(target.site, target.providerKey, identity.subject);
    const account = await socialAccountOf(deps, user.id, link);
    return {
      answer: {
        ...pair,
        user: publicUser(user),
        created: false,
        ...(account ? { social_account: account } : {}),
      },
      user,
    };
  }
  const { user, created, proved } = await userForIdentity(deps, target, login);
  // A provider the platform trusts vouched for the address of an account nobody had proven it for: what was
  // attached to the account before ends (proof.ts), and its owner is told.
  if (proved) await afterProof(deps, deps.log, user, `by a sign-in with ${app.provider}`);
  // A provider proves the first factor only: an account with a second factor needs it too (shared/mfa).
  const stored = await deps.store.doc.send(
    new GetCommand({ TableName: deps.store.table, Key: accountKeys.user(user.id), ConsistentRead: true }),
  );
  await requireNoSecondFactor(deps, stored.Item, user, ['fed'], caller.mfaFor);
  const pair = await startSession(deps, user, ['fed'], { ip: clientIp });
  return { answer: { ...pair, user: publicUser(user), created }, user };
}
