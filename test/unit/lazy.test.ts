import { describe, expect, it } from 'vitest';
import { onFirstUse } from '../../shared/lazy';

describe('onFirstUse', () => {
  it('makes the value once, on the first call, and shares it with concurrent calls', async () => {
    let made = 0;
    const value = onFirstUse(async () => {
      made++;
      return { n: made };
    });
    expect(made).toBe(0);
    const [a, b] = await Promise.all([value(), value()]);
    expect(a).toBe(b);
    expect(await value()).toBe(a);
    expect(made).toBe(1);
  });

  it('does not remember a failure: the next call tries again', async () => {
    let attempts = 0;
    const value = onFirstUse(async () => {
      attempts++;
      if (attempts === 1) throw new Error('module failed to load');
      return 'loaded';
    });
    await expect(value()).rejects.toThrow('module failed to load');
    expect(await value()).toBe('loaded');
    expect(await value()).toBe('loaded');
    expect(attempts).toBe(2);
  });
});
