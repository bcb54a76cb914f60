import { describe, expect, it } from 'vitest';
import { appliesTo, filter, filterOperators, operatorNames as generated } from '../../client/src/index';
// The server's one operator table: the client's builder must offer exactly its operators.
import {
  operandKinds,
  operatorNames,
  operators,
  appliesTo as serverAppliesTo,
} from '../../shared/data/query/operators';

describe('typed client: filter operators', () => {
  it('are exactly the operators the API knows', () => {
    // What a filter spells: an operator's suffix (`contains` on a JSON field is the table's `json_contains`), and
    // `eq` for the bare `field=value`.
    const spelled = new Set(operatorNames.map((name) => operators[name].suffix ?? name));
    expect([...filterOperators].sort()).toEqual([...spelled].sort());
  });

  it('generated into the client are the server table, operator by operator and kind by kind', () => {
    expect(generated).toEqual(operatorNames);
    for (const name of operatorNames)
      for (const kind of operandKinds)
        expect(appliesTo(name, kind), `${name} on ${kind}`).toBe(serverAppliesTo(name, kind));
  });

  it('refuse an operator the API does not know, naming it', () => {
    expect(() => filter().where('title', 'like' as never, 'x' as never)).toThrow(/no operator "like"/);
  });
});
