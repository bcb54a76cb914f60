/**
 * Puts `key` in a cache map of at most `limit` entries: past the bound the oldest entry (a Map keeps insertion order)
 * goes first. A key put again moves to the newest place. Every per-container cache of the platform goes through this
 * (or a class of its own that does the same), so none grows with what requests bring: docs/security.md lists them.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  while (map.size >= Math.max(limit, 1)) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
  map.set(key, value);
}
