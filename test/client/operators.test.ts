import { describe, expect, it } from 'vitest';
import { filter, filterOperators } from '../../client/src/filters';
// The server's operator table. When it moves (shared/data/query/), repoint this import: nothing else here changes.
import { jsonOperators, textOperators, valueOperators } from '../../shared/data/filters';

describe('typed client: filter operators', () => {
  it('are exactly the operators the API knows', () => {
    const server = [...valueOperators, ...textOperators, ...jsonOperators];
    expect([...filterOperators].sort()).toEqual([...new Set(server)].sort());
  });

  it('refuse an operator the API does not know, naming it', () => {
    expect(() => filter().where('title', 'like' as never, 'x' as never)).toThrow(/no operator "like"/);
  });
});
