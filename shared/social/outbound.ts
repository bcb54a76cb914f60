import { type LookupAddress, lookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Config } from '../config';
import { isForbiddenAddress, isLocalName } from './addresses';

/**
 * The only way social login reaches the network (docs/social-login.md, "Outgoing calls"): a provider's URLs come
 * from site administrators and from discovery documents, so every call is checked against server-side request
 * forgery. https only in the cloud; no loopback, private, link-local, carrier-grade NAT, multicast or cloud
 * metadata address, nor an IPv6 form that carries one (shared/social/addresses.ts), nor a name of this machine or
 * a private network (`localhost`, `*.localhost`, `*.internal`, trailing dot or not), whichever address the host
 * resolves to (each one is checked, and the connection uses the
 * checked addresses, so a second DNS answer cannot swap them); no redirects; one deadline for the whole call
 * (resolution, connection, answer and body: SOCIAL_LOGIN_CALL_TIMEOUT_MS); a size cap. Hosts of
 * an explicit allowlist (SOCIAL_LOGIN_ALLOWED_HOSTS) skip the address check, for local development and tests.
 */

export type OutboundPolicy = Pick<Config, 'runtime' | 'socialLogin'>;

/** A URL or an answer that outgoing calls refuse; the message says why (never a secret). */
export class OutboundError extends Error {
  override name = 'OutboundError';
}

/** The deadline when a caller names none (the address check of a write-time or explicit check). */
const defaultTimeoutMs = 5_000;
const maxBytes = 512 * 1024;

/** Whether an address is one no provider may be reached at (shared/social/addresses.ts). */
export { isForbiddenAddress };

function isAllowlisted(url: URL, policy: OutboundPolicy): boolean {
  const host = url.hostname.toLowerCase();
  return policy.socialLogin.allowedHosts.some((entry) => entry === host || entry === url.host.toLowerCase());
}

/** Parses a provider URL and checks what can be checked without the network; the URL, or an OutboundError. */
export function checkUrlShape(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('is not a valid URL');
  }
  if (url.username || url.password) throw new OutboundError('must not carry credentials');
  const allowlisted = isAllowlisted(url, policy);
  const httpAllowed = allowlisted && policy.runtime === 'local';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed))
    throw new OutboundError('must use https');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowlisted && isIP(literal) && isForbiddenAddress(literal))
    throw new OutboundError('names a loopback, private, link-local or metadata address');
  if (!allowlisted && isLocalName(url.hostname)) throw new OutboundError('names a local host');
  return url;
}

/** Resolves the host and checks every address; the addresses, or an OutboundError. */
function resolveChecked(
  hostname: string,
  allowlisted: boolean,
  timeoutMs = defaultTimeoutMs,
): Promise<LookupAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  return new Promise<LookupAddress[]>((resolve, reject) => {
    // getaddrinfo has no timeout of its own: a resolver that never answers must not hold the request.
    timer = setTimeout(
      () => reject(new OutboundError('names a host that did not resolve in time')),
      timeoutMs,
    );
    lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error || addresses.length === 0)
        return reject(new OutboundError('names a host that does not resolve'));
      if (!allowlisted && addresses.some((entry) => isForbiddenAddress(entry.address)))
        return reject(new OutboundError('resolves to a loopback, private, link-local or metadata address'));
      resolve(addresses);
    });
  }).finally(() => clearTimeout(timer));
}

/** Checks a provider URL completely: its shape, then every address its host resolves to. */
export async function checkUrl(raw: string, policy: OutboundPolicy): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!isIP(literal))
    await resolveChecked(url.hostname, isAllowlisted(url, policy), policy.socialLogin.callTimeoutMs);
  return url;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface OutboundResponse {
  status: number;
  contentType: string;
  text: string;
}

/**
 * Calls a provider URL under the guard: the URL is checked again right before the call, the connection goes to
 * a checked address, a redirect is an error, and the answer is bounded in size and, as a whole (resolution,
 * connection, headers and every byte of the body), in time: one deadline, not an idle timeout, so a provider that
 * trickles a byte now and then is still cut off.
 */
export async function outboundFetch(
  raw: string,
  policy: OutboundPolicy,
  init: OutboundRequest = {},
): Promise<OutboundResponse> {
  const timeoutMs = policy.socialLogin.callTimeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const late = () => new OutboundError('did not answer in time');
  const url = await Promise.race([
    checkUrl(raw, policy),
    new Promise<never>((_, reject) =>
      deadline.addEventListener('abort', () => reject(late()), { once: true }),
    ),
  ]);
  if (deadline.aborted) throw late();
  const allowlisted = isAllowlisted(url, policy);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, value?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      if (error) reject(error);
      else resolve(value as OutboundResponse);
    };
    const request = send(
      url,
      {
        method: init.method ?? 'GET',
        headers: { accept: 'application/json', ...init.headers },
        // The connection resolves the host here, and only checked addresses are handed back.
        lookup: (hostname, options, callback) => {
          resolveChecked(hostname, allowlisted, timeoutMs).then(
            (addresses) => {
              const first = addresses[0] as LookupAddress;
              if ((options as { all?: boolean }).all)
                (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
              else callback(null, first.address, first.family);
            },
            (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
          );
        },
      },
      (response: IncomingMessage) => {
        if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400) {
          finish(new OutboundError('answered with a redirect, which is not followed'));
          response.destroy();
          request.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            finish(new OutboundError('answered more than the size limit'));
            response.destroy();
            request.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          finish(undefined, {
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', () => finish(new OutboundError('could not be reached')));
        response.on('aborted', () => finish(new OutboundError('could not be reached')));
      },
    );
    function onDeadline() {
      const error = late();
      finish(error);
      request.destroy(error);
    }
    deadline.addEventListener('abort', onDeadline, { once: true });
    request.on('error', (error) =>
      finish(error instanceof OutboundError ? error : new OutboundError('could not be reached')),
    );
    request.end(init.body);
  });
}

/** Parses a JSON object answer; an OutboundError for anything else. */
export function jsonObject(response: OutboundResponse): Record<string, unknown> {
  try {
    const value = JSON.parse(response.text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // falls through: not JSON
  }
  throw new OutboundError('did not answer with a JSON object');
}
