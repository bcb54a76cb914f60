import { describe, expect, it } from 'vitest';
import {
  constraintName,
  maxIdentifierLength,
  nameProblem,
  pgName,
  physicalTableName,
  siteSchemaName,
} from '../../shared/data/schema/names';

describe('nameProblem', () => {
  it('accepts lower-case snake case', () => {
    expect(nameProblem('order_total_2', 'field')).toBeUndefined();
    expect(nameProblem('a'.repeat(63), 'field')).toBeUndefined();
  });

  it.each([
    ['', 'may not be blank'],
    ['Name', 'must start with a lower-case letter'],
    ['_private', 'must start with a lower-case letter'],
    ['9lives', 'must start with a lower-case letter'],
    ['with space', 'must start with a lower-case letter'],
    ['quote"d', 'must start with a lower-case letter'],
    ['semi;colon', 'must start with a lower-case letter'],
    ['a__b', 'may not contain "__"'],
    ['order', 'is a reserved SQL word'],
    ['ctid', 'is a reserved SQL word'],
    ['a'.repeat(64), 'longer than 63 characters'],
  ])('refuses %j', (name, message) => {
    expect(nameProblem(name, 'field')).toContain(message);
  });

  it('refuses field names that are query parameters, but not table names', () => {
    expect(nameProblem('ids', 'field')).toContain('query parameter');
    expect(nameProblem('ids', 'table')).toBeUndefined();
  });

  it('keeps table names ending in _edges for the graph', () => {
    expect(nameProblem('tree_edges', 'table')).toContain('_edges');
  });
});

describe('pgName', () => {
  it('joins parts when they fit', () => {
    expect(pgName(['a', 'b', 'c'])).toBe('a_b_c');
  });

  it('shortens long names with a hash, keeping them distinct and within the limit', () => {
    const one = pgName(['x'.repeat(60), 'one']);
    const two = pgName(['x'.repeat(60), 'two']);
    expect(one.length).toBeLessThanOrEqual(maxIdentifierLength);
    expect(one).not.toBe(two);
    expect(one.startsWith('xxxx')).toBe(true);
  });
});

describe('siteSchemaName', () => {
  it('prefixes the slug and turns hyphens into underscores', () => {
    expect(siteSchemaName('acme-shop')).toBe('site_acme_shop');
  });

  it('fits long slugs into 63 characters, distinctly', () => {
    const long = 'a'.repeat(90);
    expect(siteSchemaName(long).length).toBeLessThanOrEqual(63);
    expect(siteSchemaName(long)).not.toBe(siteSchemaName(`${long}b`));
  });
});

describe('physicalTableName', () => {
  it('puts the app id in front of the name', () => {
    expect(physicalTableName(12, 'posts')).toBe('a12_posts');
  });

  it('leaves room for the graph suffix _edges', () => {
    const name = physicalTableName(123456, 'p'.repeat(63));
    expect(`${name}_edges`.length).toBeLessThanOrEqual(63);
  });
});

describe('constraintName', () => {
  it('starts with the physical table name', () => {
    expect(constraintName('a1_posts', 'title', 'check')).toBe('a1_posts_title_check');
  });
});
