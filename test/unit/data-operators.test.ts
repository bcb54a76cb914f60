import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { isJsonType, typeRule } from '../../shared/data/common/field-types';
import { type CatalogEntry, fieldTypes } from '../../shared/data/common/model';
import { filterCondition } from '../../shared/data/query/filter-parse';
import { conditionSql, operatorSql } from '../../shared/data/query/filters';
import {
  fieldOperandKinds,
  type OperandKind,
  type Operator,
  operandKinds,
  operatorDocRows,
  operatorNames,
  operatorSpec,
  operatorSuffixes,
  type ValueShape,
} from '../../shared/data/query/operators';
import { checkTableSchema } from '../../shared/data/schema/table-checks';
import { compileTable } from '../../shared/data/tables/data-table';

/**
 * The operator table (shared/data/query/operators.ts) is the one place a filter operator is declared: parsing, the
 * operand checks, the SQL and the docs' operator list all come from it. Adding an operator is one entry there and
 * its SQL builder in filters.ts; these tests fail when anything else would be needed, or when the docs drift.
 */

const { schema } = checkTableSchema(
  {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'count', type: 'integer' },
      { name: 'meta', type: 'json' },
    ],
  },
  'things',
  () => undefined,
);
const entry: CatalogEntry = {
  id: 'operators-unit',
  app_id: 1,
  name: 'things',
  physical_name: 'a1_things',
  description: '',
  definition: schema,
  layout: { table: 'a1_things', constraints: {} },
  version: 1,
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
  site_identity: null,
  app_identity: null,
};
const things = compileTable('site_unit', entry);

/** A filter parameter on an operand of each kind. */
const operandOf: Record<OperandKind, string> = {
  text: 'title',
  comparable: 'count',
  json: 'meta',
  'json-path': 'meta__a',
};

/** A value of each shape that reads on an operand of each kind. */
const sample: Record<ValueShape, string> = {
  value: '1',
  list: '1,2',
  range: '1,2',
  boolean: 'true',
  text: 'x',
  keys: 'a,b',
  json: '{"a":1}',
};

function parameter(operator: Operator, kind: OperandKind): string {
  const suffix = operatorSpec(operator).suffix;
  return suffix === null ? operandOf[kind] : `${operandOf[kind]}__${suffix}`;
}

describe('the operator table', () => {
  it('gives every operator its SQL, and nothing else has SQL', () => {
    expect(Object.keys(operatorSql).sort()).toEqual([...operatorNames].sort());
    for (const name of operatorNames) expect(typeof operatorSql[name], name).toBe('function');
  });

  it('names each operator by a suffix no other operator of the same operand kind takes', () => {
    for (const kind of operandKinds)
      for (const suffix of operatorSuffixes) {
        const named = operatorNames.filter(
          (name) => operatorSpec(name).suffix === suffix && operatorSpec(name).appliesTo.includes(kind),
        );
        expect(named.length, `${suffix} on ${kind}`).toBeLessThanOrEqual(1);
      }
    // Longest first, so that `nicontains` is tried before `contains`.
    const lengths = operatorSuffixes.map((suffix) => suffix.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
  });

  it.each(operatorNames)('reads %s on the operand kinds it applies to, and only there', (name) => {
    const spec = operatorSpec(name);
    for (const kind of operandKinds) {
      const read = filterCondition(things, parameter(name, kind), sample[spec.value]);
      if (spec.appliesTo.includes(kind))
        expect(read, `${name} on ${kind}`).toMatchObject({ value: { operator: name } });
      else expect(read, `${name} on ${kind}`).not.toMatchObject({ value: { operator: name } });
    }
  });

  it('builds the SQL of every operator from the condition the parser read', async () => {
    const sql = postgres({ max: 1 });
    try {
      for (const name of operatorNames) {
        const spec = operatorSpec(name);
        const kind = spec.appliesTo[0] as OperandKind;
        const read = filterCondition(things, parameter(name, kind), sample[spec.value]);
        if (!read || 'problem' in read) throw new Error(`${name} was not read`);
        expect(conditionSql(sql, read.value), name).toBeDefined();
      }
    } finally {
      await sql.end();
    }
  });

  it('gives every field type the operand kind the field types say', () => {
    for (const type of fieldTypes) {
      const kind = fieldOperandKinds[type];
      expect(kind === 'json', type).toBe(isJsonType(type));
      expect(kind === 'text', type).toBe(type === 'string');
      expect(kind === null, type).toBe(!typeRule(type).comparable && !isJsonType(type));
    }
  });

  it('is what docs/data-tables.md lists as the operators', () => {
    const docs = readFileSync('docs/data-tables.md', 'utf8').split('\n');
    const start = docs.indexOf('| operators | on | meaning |');
    expect(start).toBeGreaterThan(0);
    const rows: string[] = [];
    for (const line of docs.slice(start + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line);
    }
    expect(rows).toEqual(operatorDocRows());
  });

  it('imports nothing at run time, so that a client can read it', () => {
    const text = readFileSync('shared/data/query/operators.ts', 'utf8');
    const imports = [
      ...text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"][^'"]+['"]/gm),
    ];
    expect(imports.filter((match) => !match[1]).map((match) => match[0])).toEqual([]);
  });
});
