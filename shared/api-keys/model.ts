import { createHash, randomBytes } from 'node:crypto';
import type { SitePermission } from '../accounts/model';

/**
 * API keys (docs/security.md, "API keys"): a secret that belongs to one site and acts within it, stored only as its
 * SHA-256. The key is `tbk_` followed by 54 characters of base64url (40 random bytes: 320 bits); the fixed prefix
 * and length let secret scanners and log filters recognise one. The first 8 characters after the prefix are shown
 * again as the key's visible prefix (48 of the 320 bits; 272 stay secret).
 */
export const apiKeyPrefix = 'tbk_';
export const apiKeyRandomBytes = 40;
/** 40 bytes of base64url without padding. */
const encodedLength = Math.ceil((apiKeyRandomBytes * 8) / 6);
export const apiKeyPattern = new RegExp(`^${apiKeyPrefix}[A-Za-z0-9_-]{${encodedLength}}$`);
/** How many characters of the key (its prefix included) are shown again after creation. */
export const visiblePrefixLength = apiKeyPrefix.length + 8;

/** Whether a bearer credential is an API key (by its form: the pipeline never sends one to the JWT verifier). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(apiKeyPrefix);
}

/** A new key: the secret (shown once) and what is kept of it. */
export function newApiKeySecret(): { key: string; hash: string; prefix: string } {
  const key = `${apiKeyPrefix}${randomBytes(apiKeyRandomBytes).toString('base64url')}`;
  return { key, hash: apiKeyHash(key), prefix: key.slice(0, visiblePrefixLength) };
}

/** The stored form of a key: its SHA-256 (a key has 320 random bits, so a fast hash is enough). */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A key as stored (both of its items carry it). */
export interface StoredApiKey {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  site: string;
  /** The site's `created_at`: a key of a deleted site never works on a new site of the same slug. */
  site_created_at: string;
  organization_slug: string;
  permissions: SitePermission[];
  app_roles: string[];
  created_by: number;
  created_by_username: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** What clients see of a key after its creation. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  site: string;
  permissions: SitePermission[];
  app_roles: string[];
  created_by: { id: number; username: string };
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

export function apiKeyView(key: StoredApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    site: key.site,
    permissions: key.permissions,
    app_roles: key.app_roles,
    created_by: { id: key.created_by, username: key.created_by_username },
    created_at: key.created_at,
    last_used_at: key.last_used_at,
    expires_at: key.expires_at,
  };
}

/** Whether a key has expired at `at` (an expiry at exactly `at` has passed). */
export function isExpired(key: Pick<StoredApiKey, 'expires_at'>, at: Date): boolean {
  return key.expires_at !== null && Date.parse(key.expires_at) <= at.getTime();
}

/** The partition prefix of keys' last-use items: the IAM condition of the last-use grant names it. */
export const apiKeyUsePrefix = 'APIKEYUSE#';

/** DynamoDB keys: the key by its hash (what a request looks up), and its entry in the site's list. */
export const apiKeyKeys = {
  byHash: (hash: string) => ({ PK: `APIKEY#${hash}`, SK: 'KEY' }),
  inSite: (site: string, id: string) => ({ PK: `SITE#${site}`, SK: `APIKEY#${id}` }),
  /**
   * The key's last use, an item of its own: the one write a request with a key makes, so that functions that
   * otherwise only read the table are granted UpdateItem on these items alone (infra/table-access.ts).
   */
  lastUse: (id: string) => ({ PK: `${apiKeyUsePrefix}${id}`, SK: 'LAST' }),
  sitePrefix: 'APIKEY#',
} as const;

/** At most this many keys per site (a bound on the site's list and on what one member can mint). */
export const apiKeysPerSite = 100;
