import { describe, expect, it } from 'vitest';
import { type FailurePolicy, lockoutAfter, subjectHash } from '../../shared/limits/failures';

const policy: FailurePolicy = {
  scope: 'test',
  maxFailures: 5,
  windowSeconds: 900,
  lockoutSeconds: 30,
  maxLockoutSeconds: 3600,
};

describe('lockoutAfter', () => {
  it('locks nothing below the threshold', () => {
    expect([1, 2, 3, 4].map((n) => lockoutAfter(policy, n))).toEqual([0, 0, 0, 0]);
  });

  it('doubles the lock with each failure past the threshold, up to the maximum', () => {
    expect([5, 6, 7, 8].map((n) => lockoutAfter(policy, n))).toEqual([30, 60, 120, 240]);
    expect(lockoutAfter(policy, 12)).toBe(3600);
    expect(lockoutAfter(policy, 10_000)).toBe(3600);
  });
});

describe('subjectHash', () => {
  it('is stable, short and does not contain the subject', () => {
    expect(subjectHash('login:alice')).toBe(subjectHash('login:alice'));
    expect(subjectHash('login:alice')).toMatch(/^[0-9a-f]{16}$/);
    expect(subjectHash('login:alice')).not.toBe(subjectHash('login:bob'));
  });
});
