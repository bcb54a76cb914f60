import { randomUUID } from 'node:crypto';
import { JwtVerifier } from 'aws-jwt-verify';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { Clock } from '../clock';
import { AuthenticationError } from '../errors';
import type { TokenSigner } from './signer';

export type TokenType = 'access' | 'refresh';

export interface TokenSettings {
  issuer: string;
  audience: string;
  accessSeconds: number;
  refreshSeconds: number;
}

/** How many verified token strings a container remembers (a few MB at most). */
const verifiedLimit = 10_000;

export interface TokenClaims {
  userId: number;
  type: TokenType;
  jti: string;
  expiresAt: number;
  /** The user's `token_version` when the token was issued (claim `ver`; 0 when absent). */
  tokenVersion: number;
  /** The refresh-token family (claim `fam`); refresh tokens only. */
  family: string | undefined;
}

/** Who a token is issued to: the user's `token_version` goes into the token, so that raising it ends the token. */
export interface TokenSubject {
  id: number;
  username: string;
  token_version?: number | undefined;
}

/** Extra claims of a refresh token: its id and its family (shared/auth/sessions.ts). */
export interface RefreshOptions {
  jti?: string | undefined;
  family?: string | undefined;
}

export interface TokenPair {
  access: string;
  refresh: string;
}

// aws-jwt-verify needs an https JWKS URI even when the keys are handed to it; nothing is fetched from it.
const jwksUri = 'https://jwks.invalid/.well-known/jwks.json';

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Issues and verifies the platform's JWTs (ES256), signing through the signer port. */
export class TokenService {
  private verifier: Promise<ReturnType<typeof JwtVerifier.create>> | undefined;
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly signer: TokenSigner,
    private readonly settings: TokenSettings,
    private readonly clock: Clock,
  ) {}

  /** The JWKS document that publishes the verification key. */
  async jwks(): Promise<{ keys: unknown[] }> {
    return { keys: [await this.signer.publicJwk()] };
  }

  async issuePair(user: TokenSubject, refresh: RefreshOptions = {}): Promise<TokenPair> {
    return {
      access: await this.issue(user, 'access'),
      refresh: await this.issue(user, 'refresh', refresh),
    };
  }

  async issue(user: TokenSubject, type: TokenType, options: RefreshOptions = {}): Promise<string> {
    const jwk = await this.signer.publicJwk();
    const now = Math.floor(this.clock().getTime() / 1000);
    const lifetime = type === 'access' ? this.settings.accessSeconds : this.settings.refreshSeconds;
    const header = { alg: 'ES256', typ: 'JWT', kid: jwk.kid };
    const payload = {
      iss: this.settings.issuer,
      aud: this.settings.audience,
      sub: String(user.id),
      username: user.username,
      token_type: type,
      jti: options.jti ?? randomUUID(),
      ver: user.token_version ?? 0,
      ...(options.family ? { fam: options.family } : {}),
      iat: now,
      exp: now + lifetime,
    };
    const signingInput = `${encode(header)}.${encode(payload)}`;
    const signature = await this.signer.sign(Buffer.from(signingInput));
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  /** Verifies a token of the given type; any failure is a 401 with a message that reveals nothing more. */
  async verify(token: string, type: TokenType): Promise<TokenClaims> {
    // A token string already verified by this container needs no second signature check, only its expiry.
    const known = this.verified.get(token);
    if (known && known.type === type && known.expiresAt > this.clock().getTime() / 1000) return known;
    const claims = await this.verifySignedToken(token, type);
    if (this.verified.size >= verifiedLimit) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  private async verifySignedToken(token: string, type: TokenType): Promise<TokenClaims> {
    const verifier = await this.getVerifier();
    let payload: JwtPayload;
    try {
      payload = verifier.verifySync(token);
    } catch {
      throw new AuthenticationError('Given token not valid for any token type', 'token_not_valid');
    }
    const now = this.clock().getTime() / 1000;
    const userId = Number(payload.sub);
    if (
      payload.token_type !== type ||
      !Number.isInteger(userId) ||
      typeof payload.exp !== 'number' ||
      payload.exp <= now
    ) {
      throw new AuthenticationError('Given token not valid for any token type', 'token_not_valid');
    }
    return { userId, type, jti: String(payload.jti), expiresAt: payload.exp, ...sessionClaims(payload) };
  }

  private getVerifier(): Promise<ReturnType<typeof JwtVerifier.create>> {
    this.verifier ??= this.signer.publicJwk().then((jwk) => {
      const verifier = JwtVerifier.create({
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        jwksUri,
      });
      verifier.cacheJwks({ keys: [jwk as never] });
      return verifier;
    });
    this.verifier.catch(() => {
      this.verifier = undefined;
    });
    return this.verifier;
  }
}

/** The session claims of a verified payload: `ver` (an integer, 0 when absent) and `fam` (refresh tokens). */
function sessionClaims(payload: JwtPayload): Pick<TokenClaims, 'tokenVersion' | 'family'> {
  const tokenVersion = payload.ver === undefined ? 0 : payload.ver;
  if (typeof tokenVersion !== 'number' || !Number.isInteger(tokenVersion)) {
    throw new AuthenticationError('Given token not valid for any token type', 'token_not_valid');
  }
  return { tokenVersion, family: typeof payload.fam === 'string' ? payload.fam : undefined };
}
