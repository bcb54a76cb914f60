import { describe, expect, it } from 'vitest';
import { AccessCache } from '../../shared/tenancy/access-cache';
import type { LoadedRequest, RequestTarget } from '../../shared/tenancy/principal';

const clock = () => new Date('2026-01-01T00:00:00Z');
const target = (userId: number): RequestTarget =>
  ({ userId, site: 's', organization: null, app: null }) as RequestTarget;

/** A load that resolves when told to, counting its calls. */
function controlledLoad() {
  const state = { loads: 0, release: [] as ((loaded: LoadedRequest) => void)[] };
  const load = () => {
    state.loads++;
    return new Promise<LoadedRequest>((resolve) => state.release.push(resolve));
  };
  return { state, load };
}

describe('AccessCache', () => {
  it('reads a target once for the requests that miss it together (the cache expired under load)', async () => {
    const cache = new AccessCache(3, clock);
    const { state, load } = controlledLoad();
    const waiting = Array.from({ length: 10 }, () => cache.get(target(1), load));
    expect(state.loads).toBe(1);
    const loaded = { principal: {} } as LoadedRequest;
    state.release[0]?.(loaded);
    for (const result of await Promise.all(waiting)) expect(result).toBe(loaded);
    // Other targets are read on their own.
    void cache.get(target(2), load);
    expect(state.loads).toBe(2);
  });

  it('reads again for a request that cannot use the shared read, and after a failed one', async () => {
    const cache = new AccessCache(3, clock);
    const { state, load } = controlledLoad();
    const stale = { principal: {} } as LoadedRequest;
    const first = cache.get(target(1), load);
    const picky = cache.get(target(1), load, (loaded) => loaded !== stale);
    state.release[0]?.(stale);
    expect(await first).toBe(stale);
    await Promise.resolve();
    await Promise.resolve();
    expect(state.loads).toBe(2);
    const fresh = { principal: {} } as LoadedRequest;
    state.release[1]?.(fresh);
    expect(await picky).toBe(fresh);

    const failing = new AccessCache(3, clock);
    let calls = 0;
    const broken = async (): Promise<LoadedRequest> => {
      calls++;
      throw new Error('unavailable');
    };
    await expect(
      Promise.all([failing.get(target(1), broken), failing.get(target(1), broken)]),
    ).rejects.toThrow('unavailable');
    await expect(failing.get(target(1), async () => fresh)).resolves.toBe(fresh);
    expect(calls).toBe(1);
  });

  it('joins no read that began before a clear', async () => {
    const cache = new AccessCache(3, clock);
    const { state, load } = controlledLoad();
    void cache.get(target(1), load);
    cache.clear();
    void cache.get(target(1), load);
    expect(state.loads).toBe(2);
  });
});
