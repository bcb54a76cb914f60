import { describe, expect, it } from 'vitest';
import type { FieldDef } from '../../console/src/queries/table-types';
import { conditionValue, operatorsFor, toFilter } from '../../console/src/screens/data/conditions';
import { parseCsv, recordsOfFile } from '../../console/src/screens/data/csv';

/** The console's data screens without a browser: reading import files, and filters as the API's parameters. */

const fields: FieldDef[] = [
  { name: 'title', type: 'string' },
  { name: 'pages', type: 'integer' },
  { name: 'price', type: 'number' },
  { name: 'in_print', type: 'boolean' },
  { name: 'metadata', type: 'object' },
];

describe('import files', () => {
  it('reads CSV with quoted cells, doubled quotes, line breaks in quotes, CRLF and a byte-order mark', () => {
    const text = '\uFEFFtitle,note\r\n"Dune, the novel","He said ""spice"""\r\nPlain,"two\nlines"\n\n';
    expect(parseCsv(text)).toEqual([
      ['title', 'note'],
      ['Dune, the novel', 'He said "spice"'],
      ['Plain', 'two\nlines'],
    ]);
  });

  it("converts CSV cells to the fields' types, omits empty cells and sends what does not convert as text", () => {
    const csv =
      'title,pages,price,in_print,metadata,other\nDune,412,9.5,true,"{""a"": 1}",x\nBad,many,,0,not json,\n';
    expect(recordsOfFile('books.csv', csv, fields)).toEqual([
      { title: 'Dune', pages: 412, price: 9.5, in_print: true, metadata: { a: 1 }, other: 'x' },
      { title: 'Bad', pages: 'many', in_print: false, metadata: 'not json' },
    ]);
  });

  it('reads a JSON array of records or {data: [...]}, and refuses anything else with a message', () => {
    expect(recordsOfFile('a.json', '[{"title": "Dune"}]', fields)).toEqual([{ title: 'Dune' }]);
    expect(recordsOfFile('a.json', '{"data": [{"title": "Dune"}]}', fields)).toEqual([{ title: 'Dune' }]);
    expect(() => recordsOfFile('a.json', '[{"title": ', fields)).toThrow('a.json is not valid JSON.');
    expect(() => recordsOfFile('a.json', '[1, 2]', fields)).toThrow(/must hold an array of records/);
    expect(() => recordsOfFile('a.csv', '', fields)).toThrow('a.csv is empty.');
  });
});

describe('filters', () => {
  const params = (
    type: string,
    path: string[],
    operator: Parameters<typeof conditionValue>[2],
    text: string,
  ) => {
    const { value, error } = conditionValue(type, path.length > 0, operator, text);
    if (error) return error;
    return toFilter([{ field: 'metadata', path, operator, value }]).params();
  };

  it('offers the operators of the API for what the filter applies to', () => {
    expect(operatorsFor('object')).toEqual([
      'json_contains',
      'contained_by',
      'has_key',
      'has_any_keys',
      'has_all_keys',
      'null',
      'nnull',
    ]);
    const onPath = operatorsFor('object', true);
    expect(onPath).toEqual(expect.arrayContaining(['eq', 'gt', 'between', 'contains', 'in']));
    expect(onPath).not.toContain('has_key');
    expect(operatorsFor('boolean')).toEqual(['eq', 'ne', 'null', 'nnull']);
    expect(operatorsFor('integer')).not.toContain('contains');
    expect(operatorsFor('tsvector')).toEqual([]);
  });

  it('sends values at a JSON path as JSON, so a quoted number stays text', () => {
    expect(params('object', ['awards', 'hugo'], 'eq', 'true')).toEqual([['metadata__awards__hugo', 'true']]);
    expect(params('object', ['weight'], 'gt', '5')).toEqual([['metadata__weight__gt', '5']]);
    expect(params('object', ['code'], 'eq', '"5"')).toEqual([['metadata__code', '"5"']]);
    expect(params('object', ['genre'], 'in', 'scifi, fantasy')).toEqual([
      ['metadata__genre__in', '"scifi","fantasy"'],
    ]);
  });

  it('sends the whole-field JSON operators: containment as JSON, keys as lists', () => {
    expect(params('object', [], 'json_contains', '{"genre": "scifi"}')).toEqual([
      ['metadata__contains', '{"genre":"scifi"}'],
    ]);
    expect(params('object', [], 'json_contains', '"scifi"')).toEqual([['metadata__contains', '"scifi"']]);
    expect(params('object', [], 'contained_by', '[1, 2]')).toEqual([['metadata__contained_by', '[1,2]']]);
    expect(params('object', [], 'has_key', 'awards')).toEqual([['metadata__has_key', 'awards']]);
    expect(params('object', [], 'has_all_keys', 'a, b')).toEqual([['metadata__has_all_keys', 'a,b']]);
    expect(params('object', [], 'json_contains', '{genre}')).toMatch(/Enter a JSON value/);
  });
});
