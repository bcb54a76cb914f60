import { ApiError, type Client, createClient, ok } from '../../../client/src/index';

/**
 * The console's access to the API: the typed client in session mode (the `sessionid` cookie of the hosted
 * sign-in page), on the console's own origin. One client per site (`X-Site`), made on demand.
 */
const clients = new Map<string, Client>();

export function clientFor(site?: string): Client {
  const key = site ?? '';
  let client = clients.get(key);
  if (!client) {
    client = createClient({ baseUrl: location.origin, site, auth: { type: 'session' } });
    clients.set(key, client);
  }
  return client;
}

/**
 * The answer of a typed call (`clientFor(site).GET('/api/…/{slug}/', { params })`): typed by the API's OpenAPI
 * document. The client throws every error, so a call that returns has its answer (a 204: undefined).
 */
export async function answerOf<T>(call: Promise<{ data?: T; error?: unknown }>): Promise<T> {
  return ok(await call);
}

/** The sign-in page of the platform, coming back to the console. */
export function signInUrl(): string {
  return `/sign-in?return_to=${encodeURIComponent('/console/')}`;
}

let leaving = false;
/**
 * Sends the browser to the sign-in page, once: signing out both answers the click and empties the identity, and a
 * second navigation started while the first is under way aborts it.
 */
export function goToSignIn(): void {
  if (leaving) return;
  leaving = true;
  location.assign(signInUrl());
}

/** Messages by field from an API error (every envelope's spelling), and its general message. */
export function errorText(error: unknown): { message: string; fields: Record<string, string[]> } {
  if (error instanceof ApiError) {
    // The roles envelope names a refused field in its text (`expires_at: The expiry time must be in the future.`).
    const named =
      error.envelope === 'roles' && !error.fields ? /^([a-z_]+): (.+)$/.exec(error.message) : null;
    if (named?.[1] && named[2]) return { message: error.message, fields: { [named[1]]: [named[2]] } };
    return { message: error.message, fields: error.fields ?? {} };
  }
  return { message: error instanceof Error ? error.message : String(error), fields: {} };
}

export { ApiError };
