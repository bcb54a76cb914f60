import { describe, expect, it } from 'vitest';
import { filter, filterOperators } from '../../client/src/filters';
// The server's one operator table: the client's builder must offer exactly its operators.
import { operatorNames, operators } from '../../shared/data/query/operators';

describe('typed client: filter operators', () => {
  it('are exactly the operators the API knows', () => {
    // What a filter spells: an operator's suffix (`contains` on a JSON field is the table's `json_contains`), and
    // `eq` for the bare `field=value`.
    const spelled = new Set(operatorNames.map((name) => operators[name].suffix ?? name));
    expect([...filterOperators].sort()).toEqual([...spelled].sort());
  });

  it('refuse an operator the API does not know, naming it', () => {
    expect(() => filter().where('title', 'like' as never, 'x' as never)).toThrow(/no operator "like"/);
  });
});
