import { AppError } from '../errors';
import { findApp, isConfigured, type SocialDeps } from './apps';
import { discover, fetchJson, oauth2Endpoints, type ProviderEndpoints } from './endpoints';
import { checkUrl, OutboundError } from './outbound';
import { providerDef } from './providers';

/**
 * The explicit check of a saved social app (`POST /api/auth/social-apps/{id}/check/`, an addition to the spec):
 * what a write does not check because it needs the network. Is the app configured, does the discovery document
 * answer and name its own issuer, does every endpoint's host resolve to addresses calls may reach, does the key set
 * answer. Each call goes through the same guard as a login (shared/social/outbound.ts), bounded by its deadline.
 */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

function reason(error: unknown): string {
  if (error instanceof OutboundError) return error.message;
  if (error instanceof AppError) return error.message;
  throw error;
}

async function addressCheck(name: string, url: string, deps: SocialDeps): Promise<Check> {
  try {
    await checkUrl(url, deps.config);
    return { name, ok: true, detail: `${url} resolves to addresses calls may reach.` };
  } catch (error) {
    return { name, ok: false, detail: `${url} ${reason(error)}.` };
  }
}

async function endpointChecks(endpoints: Omit<ProviderEndpoints, 'kind'>, deps: SocialDeps) {
  const named: Array<[string, string | undefined]> = [
    ['authorization_endpoint', endpoints.authorization],
    ['token_endpoint', endpoints.token],
    ['userinfo_endpoint', endpoints.userInfo],
    ['jwks_uri', endpoints.jwksUri],
  ];
  return Promise.all(
    named.flatMap(([name, url]) => (url ? [addressCheck(`addresses: ${name}`, url, deps)] : [])),
  );
}

export async function checkSocialApp(deps: SocialDeps, site: string, id: number) {
  const app = await findApp(deps, site, id);
  const checks: Check[] = [];
  const configured = isConfigured(app);
  checks.push({
    name: 'configured',
    ok: configured,
    detail: configured
      ? 'The app has what a login needs.'
      : 'The app lacks a client id, a secret or (OpenID Connect) settings.server_url.',
  });
  const def = providerDef(app.provider);
  if (def.kind === 'oauth2') {
    checks.push(...(await endpointChecks(oauth2Endpoints(def), deps)));
  } else {
    const serverUrl = def.discovery ?? app.settings.server_url;
    if (serverUrl) {
      const addresses = await addressCheck('addresses: server_url', serverUrl, deps);
      checks.push(addresses);
      if (addresses.ok) {
        let endpoints: ProviderEndpoints | undefined;
        try {
          endpoints = await discover(serverUrl, deps.config, def.scopes, true);
          checks.push({
            name: 'discovery',
            ok: true,
            detail: `The discovery document answers and names its own issuer (${endpoints.issuer}).`,
          });
        } catch (error) {
          checks.push({ name: 'discovery', ok: false, detail: reason(error) });
        }
        if (endpoints) {
          checks.push(...(await endpointChecks(endpoints, deps)));
          if (endpoints.jwksUri) {
            try {
              const keys = await fetchJson(endpoints.jwksUri, deps.config, 'key set');
              const count = Array.isArray(keys.keys) ? keys.keys.length : 0;
              checks.push({
                name: 'key_set',
                ok: count > 0,
                detail:
                  count > 0 ? `The key set answers with ${count} key(s).` : 'The key set holds no keys.',
              });
            } catch (error) {
              checks.push({ name: 'key_set', ok: false, detail: reason(error) });
            }
          }
        }
      }
    }
  }
  return { ok: checks.every((check) => check.ok), checks };
}
