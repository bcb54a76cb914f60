import { setBounded } from '../bounded';
import type { Clock } from '../clock';
import type { LoadedRequest, RequestTarget } from './principal';

/**
 * Who and where, remembered per container for a few seconds (`ACCESS_CACHE_SECONDS`, default 3; 0 turns it off).
 * A bounded staleness, chosen over a DynamoDB read on every request: a permission revoked, a user deactivated or a
 * password changed through another container counts there within the window; through this container (every
 * write of a group that changes access clears the cache), at once. docs/authorization.md says so to users.
 */
export const accessCacheLimit = 10_000;

export class AccessCache {
  private readonly entries = new Map<string, { until: number; loaded: LoadedRequest }>();
  /** The reads under way, by target (as many as the requests in flight at most: each is removed when done). */
  private readonly reading = new Map<string, Promise<LoadedRequest>>();

  constructor(
    private readonly seconds: number,
    private readonly clock: Clock,
    /** Bound: 10,000 (user, site, organization, app) entries; past it the oldest goes first. */
    private readonly limit = accessCacheLimit,
  ) {}

  /** How many entries are remembered. */
  get size(): number {
    return this.entries.size;
  }

  private static keyOf(target: RequestTarget): string {
    return `${target.userId}\u0000${target.site}\u0000${target.organization}\u0000${target.app}`;
  }

  /**
   * The loaded request for this target, read through `load` unless a fresh one is remembered and `usable` accepts it
   * (a token newer than the remembered user, say: the user changed since, so it is read again). Requests that miss
   * the same target while it is being read wait for that read rather than each reading it (when an entry expires
   * under load, every request in flight for it misses at once).
   */
  async get(
    target: RequestTarget,
    load: () => Promise<LoadedRequest>,
    usable: (loaded: LoadedRequest) => boolean = () => true,
  ): Promise<LoadedRequest> {
    if (this.seconds <= 0) return load();
    const key = AccessCache.keyOf(target);
    const now = this.clock().getTime();
    const hit = this.entries.get(key);
    if (hit && hit.until > now && usable(hit.loaded)) return hit.loaded;
    const pending = this.reading.get(key);
    if (pending) {
      const shared = await pending;
      if (usable(shared)) return shared;
    }
    return this.read(key, now, load);
  }

  private async read(key: string, now: number, load: () => Promise<LoadedRequest>): Promise<LoadedRequest> {
    const reading = load();
    this.reading.set(key, reading);
    try {
      const loaded = await reading;
      setBounded(this.entries, key, { until: now + this.seconds * 1000, loaded }, this.limit);
      return loaded;
    } finally {
      if (this.reading.get(key) === reading) this.reading.delete(key);
    }
  }

  /** Forgets everything: a change of users, memberships, permissions, sites or apps was made here. */
  clear(): void {
    this.entries.clear();
    // A read begun before the change may have read what it changed: later requests do not wait for it.
    this.reading.clear();
  }
}
