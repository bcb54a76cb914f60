import {
  createLocalJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { setBounded } from '../bounded';
import { AppError } from '../errors';
import type { StoredSocialApp } from './model';
import { checkUrlShape, jsonObject, OutboundError, type OutboundPolicy, outboundFetch } from './outbound';
import { type ProviderDef, providerDef } from './providers';

/**
 * Where a provider's endpoints are: fixed for OAuth 2.0 providers, from the discovery document for OpenID Connect
 * ones. Discovery documents and key sets are cached per container for ten minutes; a key set is fetched again
 * once when a token names a key it does not have (key rotation).
 */
export interface ProviderEndpoints {
  readonly kind: 'oidc' | 'oauth2';
  readonly authorization: string;
  readonly token: string;
  readonly userInfo: string | undefined;
  readonly issuer: string | undefined;
  readonly jwksUri: string | undefined;
  /** How the client authenticates at the token endpoint. */
  readonly tokenAuth: 'basic' | 'post';
  readonly scopes: readonly string[];
}

const ttlMs = 10 * 60 * 1000;
const refetchAfterMs = 30 * 1000;
/**
 * Bound: 200 discovery documents and 200 key sets per container; past it the oldest goes first. A tenant names its
 * own server_url, so it can push other entries out: that costs the others one fetch again, never a wrong answer.
 */
export const providerCacheLimit = 200;

export interface Cached<T> {
  value: T;
  fetchedAt: number;
}

const documents = new Map<string, Cached<ProviderEndpoints>>();
const keySets = new Map<string, Cached<JSONWebKeySet>>();

/** Remembers a fetched document (exported for the bound's test). */
export function remember<T>(cache: Map<string, Cached<T>>, key: string, value: T): T {
  setBounded(cache, key, { value, fetchedAt: Date.now() }, providerCacheLimit);
  return value;
}

/** The two caches (the bound's test fills them). */
export const providerCaches = { documents, keySets };

/** The provider could not be used: a 502 whose message names what failed, never a secret. */
export function providerFailure(what: string, reason: string): AppError {
  return new AppError(502, {
    code: 'provider_unavailable',
    message: `The provider's ${what} ${reason}.`,
    title: 'Bad gateway',
  });
}

export async function fetchJson(url: string, policy: OutboundPolicy, what: string) {
  try {
    const response = await outboundFetch(url, policy);
    if (response.status !== 200) throw new OutboundError(`answered with status ${response.status}`);
    return jsonObject(response);
  } catch (error) {
    if (error instanceof OutboundError) throw providerFailure(what, error.message);
    throw error;
  }
}

function endpointField(document: Record<string, unknown>, name: string, policy: OutboundPolicy): string {
  const value = document[name];
  if (typeof value !== 'string') throw providerFailure('discovery document', `has no ${name}`);
  try {
    checkUrlShape(value, policy);
  } catch (error) {
    if (error instanceof OutboundError)
      throw providerFailure('discovery document', `${name} ${error.message}`);
    throw error;
  }
  return value;
}

/**
 * Reads (or recalls) a discovery document; its issuer must be the document's own base URL. `fresh`: read it again
 * whatever the cache holds (the explicit check of an app).
 */
export async function discover(
  serverUrl: string,
  policy: OutboundPolicy,
  scopes: readonly string[],
  fresh = false,
) {
  const cached = documents.get(serverUrl);
  if (!fresh && cached && Date.now() - cached.fetchedAt < ttlMs) return cached.value;
  const document = await fetchJson(serverUrl, policy, 'discovery document');
  const expectedIssuer = serverUrl.replace(/\/\.well-known\/openid-configuration$/, '');
  if (
    typeof document.issuer !== 'string' ||
    document.issuer.replace(/\/$/, '') !== expectedIssuer.replace(/\/$/, '')
  )
    throw providerFailure('discovery document', 'names another issuer than its own URL');
  const methods = document.token_endpoint_auth_methods_supported;
  const basic = !Array.isArray(methods) || methods.includes('client_secret_basic');
  const userInfo =
    typeof document.userinfo_endpoint === 'string'
      ? endpointField(document, 'userinfo_endpoint', policy)
      : undefined;
  return remember(documents, serverUrl, {
    kind: 'oidc',
    authorization: endpointField(document, 'authorization_endpoint', policy),
    token: endpointField(document, 'token_endpoint', policy),
    userInfo,
    issuer: document.issuer,
    jwksUri: endpointField(document, 'jwks_uri', policy),
    tokenAuth: basic ? 'basic' : 'post',
    scopes,
  } satisfies ProviderEndpoints);
}

/** The fixed endpoints of a plain OAuth 2 provider (no discovery). */
export function oauth2Endpoints(def: Extract<ProviderDef, { kind: 'oauth2' }>): ProviderEndpoints {
  return {
    kind: 'oauth2',
    authorization: def.authorizationUrl,
    token: def.tokenUrl,
    userInfo: def.userInfoUrl,
    issuer: undefined,
    jwksUri: undefined,
    tokenAuth: 'post',
    scopes: def.scopes,
  };
}

/** The endpoints of an app's provider. */
export async function endpointsOf(app: StoredSocialApp, policy: OutboundPolicy): Promise<ProviderEndpoints> {
  const def = providerDef(app.provider);
  if (def.kind === 'oauth2') return oauth2Endpoints(def);
  const serverUrl = def.discovery ?? app.settings.server_url;
  if (!serverUrl) throw providerFailure('configuration', 'has no server_url');
  return discover(serverUrl, policy, def.scopes);
}

async function keySet(uri: string, policy: OutboundPolicy, fresh: boolean): Promise<JSONWebKeySet> {
  const cached = keySets.get(uri);
  const age = cached ? Date.now() - cached.fetchedAt : Number.POSITIVE_INFINITY;
  if (cached && age < ttlMs && !(fresh && age > refetchAfterMs)) return cached.value;
  const document = await fetchJson(uri, policy, 'key set');
  if (!Array.isArray(document.keys)) throw providerFailure('key set', 'has no keys');
  return remember(keySets, uri, document as unknown as JSONWebKeySet);
}

/** Thrown for an ID token that does not verify; the caller turns it into a 400. */
export class IdTokenError extends Error {
  override name = 'IdTokenError';
}

/**
 * Verifies an ID token: signature against the provider's key set, issuer, audience (our client id), expiry and
 * the nonce of this login.
 */
export async function verifyIdToken(
  idToken: string,
  endpoints: ProviderEndpoints,
  clientId: string,
  nonce: string,
  policy: OutboundPolicy,
): Promise<JWTPayload> {
  if (!endpoints.jwksUri || !endpoints.issuer) throw new IdTokenError('the provider has no key set');
  const options = {
    issuer: endpoints.issuer,
    audience: clientId,
    requiredClaims: ['exp', 'iat', 'sub'],
    clockTolerance: 30,
  };
  let payload: JWTPayload;
  try {
    const keys = await keySet(endpoints.jwksUri, policy, false);
    payload = (await jwtVerify(idToken, createLocalJWKSet(keys), options)).payload;
  } catch (error) {
    if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw asIdTokenError(error);
    try {
      const keys = await keySet(endpoints.jwksUri, policy, true);
      payload = (await jwtVerify(idToken, createLocalJWKSet(keys), options)).payload;
    } catch (again) {
      throw asIdTokenError(again);
    }
  }
  if (payload.nonce !== nonce) throw new IdTokenError('the nonce does not match this login');
  return payload;
}

function asIdTokenError(error: unknown): unknown {
  if (error instanceof joseErrors.JOSEError) return new IdTokenError(error.message);
  return error;
}
