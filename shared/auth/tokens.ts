import { randomUUID } from 'node:crypto';
import { JwtVerifier } from 'aws-jwt-verify';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { setBounded } from '../bounded';
import type { Clock } from '../clock';
import { AuthenticationError } from '../errors';
import type { PublicJwk, TokenSigner, VerificationKey } from './signer';

/** `mfa`: the short-lived `mfa_token` of a sign-in that still needs its second factor (shared/mfa). */
export type TokenType = 'access' | 'refresh' | 'mfa';

/** How long an `mfa_token` lives: the time a person has to type the second factor's code. */
export const mfaTokenSeconds = 300;

/** Where the sign-in an `mfa_token` continues ends: tokens (the JWT and provider logins) or a browser session. */
export type MfaBinding = 'jwt' | 'session';

export interface TokenSettings {
  issuer: string;
  audience: string;
  accessSeconds: number;
  refreshSeconds: number;
}

/**
 * How many verified token strings a container remembers (each under 1 KB with its claims: 10 MB at most). Past the
 * bound the oldest remembered token goes first: every token lives the same `accessSeconds`, so the oldest is also
 * the nearest to its `exp`. A remembered token is used only until its `exp`; the per-user `token_version` is still
 * checked on every request (shared/auth/sessions.ts), so a logout or a password change ends it at once.
 */
export const verifiedTokensLimit = 10_000;

export interface TokenClaims {
  userId: number;
  type: TokenType;
  jti: string;
  expiresAt: number;
  /** The user's `token_version` when the token was issued (claim `ver`; 0 when absent). */
  tokenVersion: number;
  /** The refresh-token family (claim `fam`); refresh tokens only. */
  family: string | undefined;
  /** How the user signed in (claim `amr`, RFC 8176 values: `pwd`, `fed`, `otp`, `mfa`, ...); [] when absent. */
  amr: string[];
  /** Where the sign-in an `mfa_token` continues ends (claim `mfa_for`); `mfa` tokens only. */
  mfaFor: MfaBinding | undefined;
}

/** Who a token is issued to: the user's `token_version` goes into the token, so that raising it ends the token. */
export interface TokenSubject {
  id: number;
  username: string;
  token_version?: number | undefined;
}

/** Extra claims: a refresh token's id and family (shared/auth/sessions.ts), how the user signed in, an mfa binding. */
export interface RefreshOptions {
  jti?: string | undefined;
  family?: string | undefined;
  amr?: readonly string[] | undefined;
  mfaFor?: MfaBinding | undefined;
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

/** The `typ` the platform writes in its tokens' header, and the only one it accepts. */
const tokenTyp = 'JWT';

/** How far in the future a token's `iat` may be: the clocks of the signer and the verifier may differ this much. */
export const clockSkewSeconds = 30;

/** User ids as `sub`: a positive decimal integer without sign, zeros, spaces or exponent. */
const subject = /^[1-9][0-9]{0,15}$/;

/** `Bearer <token>`: the scheme (any case), one or more spaces, one b64token (RFC 6750) and nothing else. */
const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined for any other scheme or shape. */
export function bearerToken(header: string): string | undefined {
  return bearer.exec(header)?.[1];
}

// P-256's group order n; ECDSA signatures (r, s) and (r, n - s) are both valid, so only s <= n/2 is accepted.
const p256Order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const halfOrder = p256Order >> 1n;

function scalar(bytes: Buffer): bigint {
  return BigInt(`0x${bytes.toString('hex')}`);
}

/** A raw (r||s) P-256 signature with s in the lower half of the order: the one form verify accepts. */
export function lowS(signature: Buffer): Buffer {
  if (signature.length !== 64) return signature;
  const s = scalar(signature.subarray(32));
  if (s <= halfOrder) return signature;
  const low = Buffer.from((p256Order - s).toString(16).padStart(64, '0'), 'hex');
  return Buffer.concat([signature.subarray(0, 32), low]);
}

/** Base64url without padding, in its one canonical spelling (no stray bits, no other alphabet). */
function strictBase64url(part: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

function jsonObject(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a compact JWS has the exact shape the platform issues: three canonical base64url parts, a header with
 * alg ES256 and typ JWT, and a 64-byte signature whose s is in the lower half of the order (no malleability).
 */
export function wellFormed(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [header, payload, signature] = parts.map(strictBase64url);
  if (!header || !payload || !signature || signature.length !== 64) return false;
  const fields = jsonObject(header);
  if (fields?.alg !== 'ES256' || fields.typ !== tokenTyp) return false;
  const s = scalar(signature.subarray(32));
  return s > 0n && s <= halfOrder && jsonObject(payload) !== undefined;
}

/**
 * Issues and verifies the platform's JWTs (ES256), signing through the signer port. Tokens are signed by the
 * signer's key and carry its `kid`; they verify with the signer's key or any of `verificationKeys` (a rotation's
 * next or previous key), chosen by the token's `kid`: a token whose `kid` none of them has is refused.
 */
export class TokenService {
  private verifier: Promise<ReturnType<typeof JwtVerifier.create>> | undefined;
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly signer: TokenSigner,
    private readonly settings: TokenSettings,
    private readonly clock: Clock,
    private readonly verificationKeys: readonly VerificationKey[] = [],
    private readonly verifiedLimit: number = verifiedTokensLimit,
  ) {}

  /** The JWKS document: the signing key first, then the other verification keys, each `kid` once. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    const all = await Promise.all([this.signer, ...this.verificationKeys].map((key) => key.publicJwk()));
    const kids = new Set<string>();
    return { keys: all.filter((jwk) => !kids.has(jwk.kid) && kids.add(jwk.kid)) };
  }

  async issuePair(user: TokenSubject, refresh: RefreshOptions = {}): Promise<TokenPair> {
    return {
      // The access token names its family too, so that the list of sessions can tell the caller's own.
      access: await this.issue(user, 'access', { amr: refresh.amr, family: refresh.family }),
      refresh: await this.issue(user, 'refresh', refresh),
    };
  }

  async issue(user: TokenSubject, type: TokenType, options: RefreshOptions = {}): Promise<string> {
    const jwk = await this.signer.publicJwk();
    const now = Math.floor(this.clock().getTime() / 1000);
    const lifetime =
      type === 'access'
        ? this.settings.accessSeconds
        : type === 'refresh'
          ? this.settings.refreshSeconds
          : mfaTokenSeconds;
    const header = { alg: 'ES256', typ: tokenTyp, kid: jwk.kid };
    const payload = {
      iss: this.settings.issuer,
      aud: this.settings.audience,
      sub: String(user.id),
      username: user.username,
      token_type: type,
      jti: options.jti ?? randomUUID(),
      ver: user.token_version ?? 0,
      ...(options.family ? { fam: options.family } : {}),
      ...(options.amr?.length ? { amr: [...options.amr] } : {}),
      ...(options.mfaFor ? { mfa_for: options.mfaFor } : {}),
      iat: now,
      exp: now + lifetime,
    };
    const signingInput = `${encode(header)}.${encode(payload)}`;
    // Signers (OpenSSL, KMS) return either s; the token carries the low one, the only one verify accepts.
    const signature = lowS(await this.signer.sign(Buffer.from(signingInput)));
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  /** Verifies a token of the given type; any failure is a 401 with a message that reveals nothing more. */
  async verify(token: string, type: TokenType): Promise<TokenClaims> {
    // A token string already verified by this container needs no second signature check, only its expiry.
    const known = this.verified.get(token);
    if (known && known.expiresAt > this.clock().getTime() / 1000) {
      if (known.type === type) return known;
    } else if (known) this.verified.delete(token);
    const claims = await this.verifySignedToken(token, type);
    // Bounded (verifiedTokensLimit): the oldest entry (a Map keeps insertion order) goes first.
    setBounded(this.verified, token, claims, this.verifiedLimit);
    return claims;
  }

  /** How many verified tokens are remembered (the bound's test reads it). */
  get rememberedTokens(): number {
    return this.verified.size;
  }

  private async verifySignedToken(token: string, type: TokenType): Promise<TokenClaims> {
    const invalid = () =>
      new AuthenticationError({
        message: 'Given token not valid for any token type',
        code: 'token_not_valid',
      });
    if (!wellFormed(token)) throw invalid();
    const verifier = await this.getVerifier();
    let payload: JwtPayload;
    try {
      payload = verifier.verifySync(token);
    } catch {
      throw invalid();
    }
    const claims = claimsOf(payload, type, this.clock().getTime() / 1000);
    if (!claims) throw invalid();
    return claims;
  }

  private getVerifier(): Promise<ReturnType<typeof JwtVerifier.create>> {
    this.verifier ??= this.jwks().then(({ keys }) => {
      const verifier = JwtVerifier.create({
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        jwksUri,
      });
      // The verifier picks the key by the token's `kid`, and never fetches: an unknown `kid` fails the token.
      verifier.cacheJwks({ keys: keys as never[] });
      return verifier;
    });
    this.verifier.catch(() => {
      this.verifier = undefined;
    });
    return this.verifier;
  }
}

const mfaBindings: readonly unknown[] = ['jwt', 'session'] satisfies MfaBinding[];

/** The claims of how the user signed in: `amr`, a list of short strings ([] when absent). */
function amrOf(payload: JwtPayload): string[] {
  const amr = payload.amr;
  return Array.isArray(amr) ? amr.filter((value): value is string => typeof value === 'string') : [];
}

/** The session claims of a verified payload: `ver` (an integer, 0 when absent), `fam` (refresh), `amr`, `mfa_for`. */
function sessionClaims(payload: JwtPayload): Pick<TokenClaims, 'tokenVersion' | 'family' | 'amr' | 'mfaFor'> {
  const tokenVersion = payload.ver === undefined ? 0 : payload.ver;
  if (typeof tokenVersion !== 'number' || !Number.isInteger(tokenVersion)) {
    throw new AuthenticationError({
      message: 'Given token not valid for any token type',
      code: 'token_not_valid',
    });
  }
  return {
    tokenVersion,
    family: typeof payload.fam === 'string' ? payload.fam : undefined,
    amr: amrOf(payload),
    mfaFor: mfaBindings.includes(payload.mfa_for) ? (payload.mfa_for as MfaBinding) : undefined,
  };
}

/** The claims of a verified payload, or undefined unless each is exactly what `issue` writes and still valid. */
function claimsOf(payload: JwtPayload, type: TokenType, now: number): TokenClaims | undefined {
  const { sub, exp, iat, jti } = payload;
  if (payload.token_type !== type || typeof sub !== 'string' || !subject.test(sub)) return undefined;
  if (typeof exp !== 'number' || !Number.isInteger(exp) || exp <= now) return undefined;
  if (typeof iat !== 'number' || !Number.isInteger(iat) || iat > now + clockSkewSeconds) return undefined;
  if (typeof jti !== 'string' || jti === '') return undefined;
  const userId = Number(sub);
  return Number.isSafeInteger(userId)
    ? { userId, type, jti, expiresAt: exp, ...sessionClaims(payload) }
    : undefined;
}
