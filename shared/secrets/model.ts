/** The secret store (docs/secrets.md): secret types, tags, secrets and their history. */

export const sensitivityLevels = ['public', 'private', 'sensitive'] as const;
export type Sensitivity = (typeof sensitivityLevels)[number];

export const typeKinds = ['system', 'custom'] as const;
export type TypeKind = (typeof typeKinds)[number];

/** Names of types and tags. */
export const namePattern = '^[a-zA-Z0-9_-]+$';

/** Secret keys: they appear in paths and in storage keys, so `#` and `/` are kept out. */
export const keyPattern = '^[A-Za-z0-9_.-]+$';

export const defaultTagColor = '#6B7280';

/** The slug of a type or tag name: underscores become hyphens, lower case (names are unique case-insensitively). */
export function nameSlug(name: string): string {
  return name.replace(/_/g, '-').toLowerCase();
}

export interface SecretType {
  site: string;
  type: TypeKind;
  name: string;
  /** From the name at creation; stays when the name changes (paths and secrets refer to it). */
  slug: string;
  description: string;
  sensitivity_level: Sensitivity;
  schema: Record<string, unknown>;
  /** Secrets of this type: kept in the same transactions as the secrets, so deletion can refuse a type in use. */
  secret_count: number;
  created_at: string;
  modified_at: string;
}

export interface Tag {
  site: string;
  name: string;
  slug: string;
  description: string;
  color: string;
  created_at: string;
  modified_at: string;
}

/** A stored secret: the value in plaintext when public, sealed (shared/keys/envelope.ts) otherwise. */
export interface StoredSecret {
  site: string;
  /** App slug of an app-level secret; null at site level. */
  app: string | null;
  key: string;
  type_slug: string;
  /** The type's name and sensitivity, copied so one read serves a GET (kept in step on rename). */
  type_name: string;
  sensitivity_level: Sensitivity;
  /** Tag names (shown) and slugs (filtered on); kept in step on tag rename and delete. */
  tags: string[];
  tag_slugs: string[];
  value?: unknown;
  ciphertext?: string;
  encrypted_key?: string;
  /** A fresh id per write: the plaintext cache's version (shared/secrets/value-cache.ts). */
  revision: string;
  created_by: string;
  created_at: string;
  modified_at: string;
}

export type HistoryAction = '+' | '~' | '-';

export interface HistoryRecord {
  action: HistoryAction;
  user: string;
  timestamp: string;
  key: string;
  app: string | null;
  secret_type: string;
  tags: string[];
  /** What changed, never the value itself: e.g. `{tags: {from, to}}`; empty on creation. */
  changes: Record<string, unknown>;
}
