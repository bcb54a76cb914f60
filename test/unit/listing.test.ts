import { describe, expect, it } from 'vitest';
import { matches, orderings, pageOf, sortBy } from '../../shared/api/listing';
import { isActive } from '../../shared/roles/model';

interface Row {
  id: number;
  name: string;
  expires: string | null;
}

const rows: Row[] = [
  { id: 1, name: 'beta', expires: '2030-01-02T00:00:00.000Z' },
  { id: 2, name: 'Alpha', expires: null },
  { id: 3, name: 'alpha', expires: '2030-01-01T00:00:00.000Z' },
];
const fields = { name: (row: Row) => row.name, expires: (row: Row) => row.expires };
const ids = (list: Row[]) => list.map((row) => row.id);

describe('sortBy', () => {
  it('sorts text case-insensitively, ties broken by the tie-breaker', () => {
    expect(ids(sortBy(rows, 'name', fields, (row) => row.id))).toEqual([2, 3, 1]);
  });

  it('reverses with a - prefix and keeps the tie-breaker ascending', () => {
    expect(ids(sortBy(rows, '-name', fields, (row) => row.id))).toEqual([1, 2, 3]);
  });

  it('sorts null after every value ascending, first descending', () => {
    expect(ids(sortBy(rows, 'expires', fields, (row) => row.id))).toEqual([3, 1, 2]);
    expect(ids(sortBy(rows, '-expires', fields, (row) => row.id))).toEqual([2, 1, 3]);
  });

  it('throws for an unknown field (the query schema lets none through)', () => {
    expect(() => sortBy(rows, 'size', fields, (row) => row.id)).toThrow('Unknown ordering field size');
  });
});

describe('orderings', () => {
  it('lists each field ascending and descending', () => {
    expect(orderings(['name', 'created_at'])).toEqual(['name', '-name', 'created_at', '-created_at']);
  });
});

describe('matches', () => {
  it('matches any value partially and case-insensitively', () => {
    expect(matches('LPH', 'x', 'alpha')).toBe(true);
    expect(matches('zeta', 'alpha')).toBe(false);
  });

  it('matches everything without a search', () => {
    expect(matches(undefined, 'alpha')).toBe(true);
    expect(matches('', 'alpha')).toBe(true);
  });
});

describe('pageOf', () => {
  it('returns one page, or everything without a page size', () => {
    expect(pageOf([1, 2, 3, 4, 5], 2, 2)).toEqual([3, 4]);
    expect(pageOf([1, 2, 3], 5, 2)).toEqual([]);
    expect(pageOf([1, 2, 3])).toEqual([1, 2, 3]);
  });
});

describe('isActive', () => {
  const at = new Date('2030-01-01T00:00:00.000Z');

  it('counts a permanent membership', () => {
    expect(isActive({ expires_at: null }, at)).toBe(true);
  });

  it('counts a membership until the instant before its expiry', () => {
    expect(isActive({ expires_at: '2030-01-01T00:00:00.001Z' }, at)).toBe(true);
    expect(isActive({ expires_at: '2030-01-01T00:00:00.000Z' }, at)).toBe(false);
    expect(isActive({ expires_at: '2029-12-31T23:59:59.999Z' }, at)).toBe(false);
  });
});
