import { setBounded } from '../bounded';
import type { Clock } from '../clock';
import type { Sensitivity } from './model';

/**
 * Decrypted secret values of this container, keyed by where the secret is and checked against its revision
 * (docs/secrets.md, "Cache"). Every read still fetches the item with a consistent read, a cheap call; only when its
 * revision is the cached one is the value reused, so a write anywhere is seen at once by every container and the
 * data key is not unwrapped again (no KMS `Decrypt`) while nothing changed. Entries live at most the spec's
 * lifetimes: private and sensitive 5 minutes, public 10 minutes.
 */
export const cacheLifetimesMs: Record<Sensitivity, number> = {
  public: 10 * 60_000,
  private: 5 * 60_000,
  sensitive: 5 * 60_000,
};

interface Entry {
  revision: string;
  value: unknown;
  expires: number;
}

/** Bound: 2,000 decrypted values per container; past it the oldest goes first. */
export const valueCacheLimit = 2000;

export class ValueCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly limit = valueCacheLimit,
  ) {}

  /** How many values are remembered. */
  get size(): number {
    return this.entries.size;
  }

  /** The cached value of a secret if it is still the value of this revision and young enough. */
  get(id: string, revision: string): { value: unknown } | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.revision !== revision || entry.expires <= this.clock().getTime()) {
      this.entries.delete(id);
      return undefined;
    }
    return { value: entry.value };
  }

  set(id: string, revision: string, value: unknown, sensitivity: Sensitivity): void {
    setBounded(
      this.entries,
      id,
      { revision, value, expires: this.clock().getTime() + cacheLifetimesMs[sensitivity] },
      this.limit,
    );
  }

  /** Forgets a secret this container changed or deleted. */
  delete(id: string): void {
    this.entries.delete(id);
  }
}

/** The cache id of a secret. */
export const cacheId = (site: string, app: string | null, key: string) => JSON.stringify([site, app, key]);
