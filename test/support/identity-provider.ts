import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider (panva's oidc-provider) on 127.0.0.1, driven over HTTP without HTML: the
 * interaction route signs in the account named by `login_hint` at once, and a grant loader grants the scopes,
 * so `authorize()` follows the redirects of a browser and answers the callback's `code` and `state`. ID tokens
 * carry the e-mail claims (`conformIdTokenClaims: false`) unless asked not to.
 */
export interface IdpAccount {
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

export interface IdentityProvider {
  readonly issuer: string;
  readonly discoveryUrl: string;
  /** `host:port`, for SOCIAL_LOGIN_ALLOWED_HOSTS. */
  readonly host: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  /** Accounts by id (the `sub`); tests add theirs. */
  readonly accounts: Map<string, IdpAccount>;
  /** The account a real browser signs in as (it sends no `login_hint`); the browser tests set it. */
  browserAccount: string | undefined;
  /** Follows an authorization URL as the browser of `account` would: the callback's code and state. */
  authorize(authorizationUrl: string, account: string): Promise<{ code: string; state: string }>;
  stop(): Promise<void>;
}

const scope = 'openid email profile';

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** Cookies of one browser, by name. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** `idTokenClaims: false` keeps the e-mail claims out of the ID token (the provider's default): user info has them. */
export async function startIdentityProvider(
  options: { idTokenClaims?: boolean; port?: number; redirectUri?: string } = {},
): Promise<IdentityProvider> {
  const accounts = new Map<string, IdpAccount>();
  const server = createServer();
  const port = await listen(server, options.port);
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'platform-client';
  const clientSecret = 'platform-client-secret-0123456789';
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1:5173/auth/callback';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    conformIdTokenClaims: options.idTokenClaims === false,
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    cookies: { keys: ['identity-provider-test-key'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: async () => ({ sub: id, ...account }) } : undefined;
    },
    loadExistingGrant: async (ctx: any) => {
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope(scope);
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      void (async () => {
        const details = await provider.interactionDetails(req, res);
        const accountId = String(details.params.login_hint ?? identity.browserAccount ?? '');
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId } },
          { mergeWithLastSubmission: false },
        );
      })().catch((error: Error) => {
        res.statusCode = 500;
        res.end(error.message);
      });
      return;
    }
    callback(req, res);
  });

  async function authorize(authorizationUrl: string, account: string) {
    const jar = new CookieJar();
    const url = new URL(authorizationUrl);
    url.searchParams.set('login_hint', account);
    let next = url.toString();
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.take(response);
      const location = response.headers.get('location');
      if (!location) throw new Error(`identity provider: ${response.status} ${await response.text()}`);
      const target = new URL(location, next);
      if (target.toString().startsWith(redirectUri)) {
        const code = target.searchParams.get('code');
        const state = target.searchParams.get('state');
        if (!code || !state) throw new Error(`identity provider refused: ${target.search}`);
        return { code, state };
      }
      next = target.toString();
    }
    throw new Error('identity provider: too many redirects');
  }

  const identity: IdentityProvider = {
    browserAccount: undefined,
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    host: `127.0.0.1:${port}`,
    clientId,
    clientSecret,
    redirectUri,
    accounts,
    authorize,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return identity;
}
