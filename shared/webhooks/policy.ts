import type { Config } from '../config';
import { checkUrl, OutboundError, type OutboundPolicy } from '../social/outbound';

/**
 * Which addresses webhook endpoints may name: exactly the rule of social login's outgoing calls
 * (shared/social/addresses.ts, shared/social/outbound.ts): https only, no loopback, private, link-local,
 * carrier-grade NAT, multicast or metadata address, nor a local name, checked when the endpoint is written and
 * again at each delivery through the connection's own lookup. WEBHOOKS_ALLOWED_HOSTS plays the part of
 * SOCIAL_LOGIN_ALLOWED_HOSTS (local development and tests, and locally http).
 */
export function webhookPolicy(config: Pick<Config, 'runtime' | 'socialLogin' | 'webhooks'>): OutboundPolicy {
  return {
    runtime: config.runtime,
    socialLogin: {
      ...config.socialLogin,
      allowedHosts: config.webhooks.allowedHosts,
      callTimeoutMs: config.webhooks.callTimeoutMs,
    },
  };
}

/** The URL's refusal, or undefined when the URL may be an endpoint's. */
export async function urlProblem(
  url: string,
  config: Pick<Config, 'runtime' | 'socialLogin' | 'webhooks'>,
): Promise<string | undefined> {
  try {
    await checkUrl(url, webhookPolicy(config));
    return undefined;
  } catch (error) {
    if (error instanceof OutboundError) return error.message;
    throw error;
  }
}
