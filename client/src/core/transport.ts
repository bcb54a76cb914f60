import createFetchClient, { type Client as FetchClient, type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/openapi.generated.js';
import { type ApiError, apiError, envelopeOf } from './errors.js';

/** An access and a refresh token, as `POST /api/auth/jwt/token/` and `/refresh/` hand them out. */
export interface TokenPair {
  access: string;
  refresh: string;
}

/**
 * How requests authenticate.
 * - `{ type: 'bearer', access?, refresh?, onTokens? }`: a bearer token pair. On a 401 the client refreshes once
 *   (the API rotates the refresh token: the new pair replaces the old one, and `onTokens` is told so it can be
 *   stored), then replays the request; requests that fail together wait for one refresh.
 * - `{ type: 'apiKey', key }`: a backend's API key of one site (`tbk_…`), sent as `Authorization: Bearer <key>`;
 *   never refreshed (a 401 means the key was revoked or expired) and never asked to sign in.
 * - `{ type: 'session' }`: the browser's `sessionid` cookie; every request is sent with `credentials: 'include'`
 *   and the browser adds the Origin header the API checks on changes (the app's origin must be the API's or one of
 *   its `CORS_ORIGINS`).
 */
export type Auth =
  | { type: 'bearer'; access?: string; refresh?: string; onTokens?: (tokens: TokenPair | undefined) => void }
  | { type: 'apiKey'; key: string }
  | { type: 'session' };

/** Retries of a 429 answer: wait `Retry-After` seconds (1 when absent), at most `maxRetries` times. */
export interface RetryOptions {
  /** Default 2. */
  maxRetries?: number;
  /** A longer `Retry-After` is not waited for: the 429 is thrown at once. Default 30. */
  maxWaitSeconds?: number;
  /** How to wait (tests count the waits). Default: a timer. */
  sleep?: (milliseconds: number) => Promise<void>;
}

export interface ClientOptions {
  /** The API's origin, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** The site slug: sent as `X-Site` on every request (site-scoped routes need it). */
  site?: string;
  auth?: Auth;
  /** `false` turns retries of 429 answers off. */
  retry?: RetryOptions | false;
  /** A fetch of your own (a Node cookie jar, instrumentation). Default: the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** The typed client: `GET`/`POST`/… are openapi-fetch's, typed by the API's OpenAPI document. */
export type RawClient = FetchClient<paths>;

export interface Transport extends Pick<RawClient, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'> {
  readonly baseUrl: string;
  readonly site: string | undefined;
  /** The openapi-fetch client itself (its `use` adds middleware). Errors are thrown, never returned. */
  readonly raw: RawClient;
  /** Signs in: a token pair in bearer mode, a `sessionid` cookie in session mode. Returns the session's user in session mode. */
  signIn(username: string, password: string): Promise<SignedIn>;
  /** Session mode: ends the session. Bearer mode: forgets the tokens. */
  signOut(): Promise<void>;
  /** The current token pair (bearer mode). */
  tokens(): TokenPair | undefined;
  /** Any request by path (refine's `custom`); throws the typed error of the path's envelope. */
  request<T = unknown>(method: string, path: string, init?: RequestInit2): Promise<T>;
}

/** What a sign-in answers: the token pair (bearer mode), or the session's user and end (session mode). */
export type SignedIn =
  | { type: 'bearer'; tokens: TokenPair }
  | {
      type: 'session';
      user: { id: number; username: string; email: string } & Record<string, unknown>;
      expires_at: string;
    };

export interface RequestInit2 {
  query?: URLSearchParams | Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The path template (`/api/apps/{app_slug}/…`) when known, for the error envelope. */
  template?: string;
}

const sleepFor = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));
const authPaths = new Set(['/api/auth/jwt/token/', '/api/auth/jwt/refresh/', '/api/auth/session/']);

/** Data returned by a call whose errors are thrown: the API answered 2xx, so `data` is there (204: undefined). */
export function ok<T>(result: { data?: T; error?: unknown }): T {
  return result.data as T;
}

/** The transport: openapi-fetch's typed calls and `request`, with authentication, refresh and retries. */
export function createTransport(options: ClientOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const auth = options.auth;
  const retry = options.retry === false ? undefined : options.retry;
  const maxRetries = options.retry === false ? 0 : (retry?.maxRetries ?? 2);
  const maxWaitSeconds = retry?.maxWaitSeconds ?? 30;
  const sleep = retry?.sleep ?? sleepFor;
  let tokens: TokenPair | undefined =
    auth?.type === 'bearer' && auth.access ? { access: auth.access, refresh: auth.refresh ?? '' } : undefined;
  let refreshing: Promise<boolean> | undefined;

  function setTokens(next: TokenPair | undefined): void {
    tokens = next;
    if (auth?.type === 'bearer') auth.onTokens?.(next);
  }

  /** One refresh for every request that needs it: callers that arrive while it runs share its outcome. */
  function refresh(): Promise<boolean> {
    refreshing ??= (async () => {
      const presented = tokens?.refresh;
      if (!presented) return false;
      const response = await fetchImpl(
        new Request(`${baseUrl}/api/auth/jwt/refresh/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ refresh: presented }),
        }),
      );
      if (!response.ok) {
        await response.body?.cancel();
        if (tokens?.refresh === presented) setTokens(undefined);
        return false;
      }
      setTokens((await response.json()) as TokenPair);
      return true;
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  /** Sends a request: adds the bearer token, refreshes once on a 401, waits out 429s within the bounds. */
  async function send(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    let waits = 0;
    let refreshed = false;
    for (;;) {
      const attempt = request.clone();
      const used = auth?.type === 'apiKey' ? auth.key : tokens?.access;
      if (used && !attempt.headers.has('authorization'))
        attempt.headers.set('authorization', `Bearer ${used}`);
      const response = await fetchImpl(attempt);
      if (response.status === 401 && auth?.type === 'bearer' && !refreshed && !authPaths.has(path) && used) {
        refreshed = true;
        // Another request may have refreshed already: replay with its token, else refresh (shared).
        if (tokens?.access !== used || (await refresh())) {
          await response.body?.cancel();
          continue;
        }
        return response;
      }
      if (response.status === 429 && waits < maxRetries) {
        const header = response.headers.get('retry-after');
        const seconds = header === null ? 1 : Number(header);
        if (!Number.isFinite(seconds) || seconds < 0 || seconds > maxWaitSeconds) return response;
        waits += 1;
        await response.body?.cancel();
        await sleep(seconds * 1000);
        continue;
      }
      return response;
    }
  }

  const raw = createFetchClient<paths>({
    baseUrl,
    fetch: send,
    headers: { ...options.headers, ...(options.site ? { 'x-site': options.site } : {}) },
    ...(auth?.type === 'session' ? { credentials: 'include' as const } : {}),
  });
  const throwErrors: Middleware = {
    async onResponse({ response, schemaPath, request }) {
      if (response.ok) return undefined;
      throw await errorOf(response, envelopeOf(schemaPath, request.method));
    },
  };
  raw.use(throwErrors);

  async function request<T>(method: string, target: string, init: RequestInit2 = {}): Promise<T> {
    const [path = '', own = ''] = apiPath(baseUrl, target).split('?', 2);
    const query = new URLSearchParams(own);
    if (init.query instanceof URLSearchParams)
      for (const [name, value] of init.query) query.append(name, value);
    else
      for (const [name, value] of Object.entries(init.query ?? {}))
        if (value !== undefined) query.set(name, String(value));
    const search = query.toString();
    const headers: Record<string, string> = {
      ...options.headers,
      ...(options.site ? { 'x-site': options.site } : {}),
      ...init.headers,
    };
    if (init.body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await send(
      new Request(`${baseUrl}${path}${search ? `?${search}` : ''}`, {
        method: method.toUpperCase(),
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        ...(auth?.type === 'session' ? { credentials: 'include' as const } : {}),
      }),
    );
    if (!response.ok) throw await errorOf(response, envelopeOf(init.template ?? path, method));
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  return {
    baseUrl,
    site: options.site,
    raw,
    GET: raw.GET,
    POST: raw.POST,
    PUT: raw.PUT,
    PATCH: raw.PATCH,
    DELETE: raw.DELETE,
    request,
    tokens: () => tokens,
    async signIn(username, password) {
      if (auth?.type === 'session') {
        const session = ok(await raw.POST('/api/auth/session/', { body: { username, password } }));
        return { type: 'session', ...session };
      }
      const pair = ok(await raw.POST('/api/auth/jwt/token/', { body: { username, password } }));
      setTokens(pair);
      return { type: 'bearer', tokens: pair };
    },
    async signOut() {
      if (auth?.type === 'session') await raw.DELETE('/api/auth/session/');
      else setTokens(undefined);
    },
  };
}

/**
 * The path of a request target: a path, or an absolute URL on the API's own origin. Any other origin is refused
 * before anything is sent: the client's token or cookie is for the API only.
 */
function apiPath(baseUrl: string, target: string): string {
  if (target.startsWith('/') && !target.startsWith('//')) return target;
  const api = new URL(baseUrl);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new TypeError(`request: "${target}" is neither a path starting with "/" nor an absolute URL.`);
  }
  if (url.origin !== api.origin)
    throw new TypeError(
      `request: ${url.origin} is not the API's origin (${api.origin}); the client sends its credentials to the API only.`,
    );
  const prefix = api.pathname.replace(/\/+$/, '');
  const pathname = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
  return `${pathname}${url.search}`;
}

async function errorOf(response: Response, envelope: ReturnType<typeof envelopeOf>): Promise<ApiError> {
  const text = await response.clone().text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return apiError(envelope, response, body);
}
