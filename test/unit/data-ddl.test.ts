import { describe, expect, it } from 'vitest';
import type { TableSchema } from '../../shared/data/common/model';
import { ddl, ident, joinDdl, keyword, literal } from '../../shared/data/tables/ddl';
import { checkExpression, columnDefinition, planCreateTable } from '../../shared/data/tables/layout';

describe('ddl', () => {
  it('turns names and values into placeholders and arguments', () => {
    const statement = ddl`ALTER TABLE ${ident('s')}.${ident('t"x')} ADD CHECK (${ident('c')} ~ ${literal("it's")})`;
    expect(statement.template).toBe('ALTER TABLE %I.%I ADD CHECK (%I ~ %L)');
    expect(statement.args).toEqual(['s', 't"x', 'c', "it's"]);
  });

  it('escapes % in the constant text', () => {
    expect(ddl`SELECT 5 % 2`.template).toBe('SELECT 5 %% 2');
  });

  it('joins fragment arrays with commas and nests fragments', () => {
    const columns = [ddl`${ident('a')}`, ddl`${ident('b')}`];
    const statement = ddl`CREATE INDEX ${ident('i')} ON ${ident('t')} (${columns})`;
    expect(statement.template).toBe('CREATE INDEX %I ON %I (%I, %I)');
    expect(statement.args).toEqual(['i', 't', 'a', 'b']);
    expect(joinDdl(columns, ' AND ').template).toBe('%I AND %I');
  });

  it('refuses anything but letters, digits and spaces as a keyword', () => {
    expect(keyword('SET NULL').template).toBe('SET NULL');
    expect(() => keyword('text; DROP TABLE x')).toThrow();
  });
});

const schema: TableSchema = {
  fields: [
    { name: 'id', type: 'string', format: 'uuid' },
    { name: 'title', type: 'string', constraints: { required: true, minLength: 1, maxLength: 10 } },
    { name: 'kind', type: 'string', constraints: { enum: ['a', 'b'] }, default: 'a' },
    { name: 'meta', type: 'object', default: { x: 1 } },
    { name: 'count', type: 'integer', constraints: { minimum: 0 } },
    { name: 'created_at', type: 'datetime' },
    { name: 'parent_id', type: 'string', format: 'uuid' },
  ],
  primaryKey: ['id'],
  uniqueKeys: [['title', 'kind']],
  foreignKeys: [
    {
      fields: ['parent_id'],
      reference: { resource: '', fields: ['id'] },
      'x-actions': { onDelete: 'CASCADE' },
    },
  ],
  indexes: [{ name: 'by_count', fields: ['count'], unique: true }],
};

describe('columnDefinition', () => {
  it('generates uuid keys, manages timestamps and casts defaults', () => {
    const field = (name: string) =>
      schema.fields.find((candidate) => candidate.name === name) ?? schema.fields[0];
    expect(columnDefinition(field('id') as never, schema).template).toBe(
      '%I uuid NOT NULL DEFAULT gen_random_uuid()',
    );
    expect(columnDefinition(field('created_at') as never, schema).template).toBe(
      '%I timestamptz NOT NULL DEFAULT now()',
    );
    const kind = columnDefinition(field('kind') as never, schema);
    expect(kind.template).toBe('%I text NULL DEFAULT %L::text');
    expect(kind.args).toEqual(['kind', 'a']);
    expect(columnDefinition(field('meta') as never, schema).args).toEqual(['meta', '{"x":1}']);
  });
});

describe('checkExpression', () => {
  it('combines the constraints of a field into one CHECK', () => {
    const title = schema.fields[1];
    const check = checkExpression(title as never);
    expect(check?.template).toBe('char_length(%I) >= %L::integer AND char_length(%I) <= %L::integer');
    expect(check?.args).toEqual(['title', '1', 'title', '10']);
  });

  it('anchors patterns and lists enum values as literals of the column type', () => {
    const check = checkExpression({
      name: 'code',
      type: 'string',
      constraints: { pattern: 'a|b', enum: ['a'] },
    });
    expect(check?.template).toBe('%I ~ %L AND %I = ANY (ARRAY[%L]::text[])');
    expect(check?.args).toEqual(['code', '^(?:a|b)$', 'code', 'a']);
  });

  it('is undefined without constraints', () => {
    expect(checkExpression({ name: 'x', type: 'string' })).toBeUndefined();
  });
});

describe('planCreateTable', () => {
  it('names every constraint after the table and records it in the layout', () => {
    const plan = planCreateTable('site_x', 'a1_things', schema, () => undefined, 'things');
    expect(plan.layout.constraints).toEqual({
      a1_things_pkey: { kind: 'primary', fields: ['id'] },
      a1_things_title_check: { kind: 'check', fields: ['title'] },
      a1_things_kind_check: { kind: 'check', fields: ['kind'] },
      a1_things_count_check: { kind: 'check', fields: ['count'] },
      a1_things_title_kind_key: { kind: 'unique', fields: ['title', 'kind'] },
      a1_things_parent_id_fkey: {
        kind: 'foreign',
        fields: ['parent_id'],
        onDelete: 'CASCADE',
        references: 'things',
        referencesPhysical: 'a1_things',
        referencedFields: ['id'],
      },
      a1_things_by_count_idx: { kind: 'index', fields: ['count'] },
    });
    expect(plan.statements[0]?.template.startsWith('CREATE TABLE %I.%I (')).toBe(true);
    expect(plan.statements[0]?.template).toContain('ON DELETE CASCADE');
    // The table, an index on the foreign key (deletes of referenced records look it up), the declared index, and
    // the index of the default list order (created_at, key).
    expect(
      plan.statements.map((statement) => /^CREATE (UNIQUE )?(TABLE|INDEX)/.exec(statement.template)?.[0]),
    ).toEqual(['CREATE TABLE', 'CREATE INDEX', 'CREATE UNIQUE INDEX', 'CREATE INDEX']);
    expect(plan.statements[3]?.args).toEqual([
      'a1_things_created_at_id_ord',
      'site_x',
      'a1_things',
      'created_at',
      'id',
    ]);
  });
});
