import { describe, expect, it } from 'vitest';
import type { CatalogEntry, TableSchema } from '../../shared/data/common/model';
import { filtersFromObject, filtersFromQuery } from '../../shared/data/query/conditions';
import { checkTableSchema, type RawTableSchema } from '../../shared/data/schema/table-checks';
import { hasUniqueSet } from '../../shared/data/schema/unique-sets';
import { check, compileRecordValidators } from '../../shared/data/schema/validator';
import { compileTable, keyFromText, present } from '../../shared/data/tables/data-table';

const none = () => undefined;

function checked(raw: RawTableSchema, lookup: (name: string) => TableSchema | undefined = none) {
  return checkTableSchema(raw, 'things', lookup);
}

describe('checkTableSchema', () => {
  it('adds a uuid id key in front when no key is declared', () => {
    const { schema, errors } = checked({ fields: [{ name: 'title', type: 'string' }] });
    expect(errors).toEqual({});
    expect(schema.fields[0]).toEqual({ name: 'id', type: 'string', format: 'uuid' });
    expect(schema.primaryKey).toEqual(['id']);
  });

  it('uses a declared id field as the key', () => {
    const { schema } = checked({ fields: [{ name: 'id', type: 'integer' }] });
    expect(schema.fields).toEqual([{ name: 'id', type: 'integer' }]);
    expect(schema.primaryKey).toEqual(['id']);
  });

  it('keeps the client field positions in error paths when it adds the id', () => {
    const { errors } = checked({
      fields: [
        { name: 'ok', type: 'string' },
        { name: 'bad', type: 'float' as never },
      ],
    });
    expect(Object.keys(errors)).toEqual(['fields.1.type']);
  });

  it('normalizes single names to lists and defaults onDelete to RESTRICT', () => {
    const target: TableSchema = {
      fields: [{ name: 'id', type: 'string', format: 'uuid' }],
      primaryKey: ['id'],
      uniqueKeys: [],
      foreignKeys: [],
      indexes: [],
    };
    const { schema, errors } = checked(
      {
        fields: [{ name: 'owner_id', type: 'string', format: 'uuid' }],
        foreignKeys: [{ fields: 'owner_id', reference: { resource: 'owners', fields: 'id' } }],
        indexes: [{ fields: 'owner_id' }],
      },
      (name) => (name === 'owners' ? target : undefined),
    );
    expect(errors).toEqual({});
    expect(schema.foreignKeys).toEqual([
      {
        fields: ['owner_id'],
        reference: { resource: 'owners', fields: ['id'] },
        'x-actions': { onDelete: 'RESTRICT' },
      },
    ]);
    expect(schema.indexes).toEqual([{ name: 'owner_id_idx', fields: ['owner_id'], unique: false }]);
  });

  it('refuses managed fields of the wrong type', () => {
    const { errors } = checked({
      fields: [
        { name: 'created_at', type: 'date' },
        { name: 'is_deleted', type: 'string' },
      ],
    });
    expect(errors['fields.0.type']?.[0]).toContain('must be of type datetime');
    expect(errors['fields.1.type']?.[0]).toContain('must be of type boolean');
  });

  it('requires x-search on the search vector, built from string fields', () => {
    const missing = checked({ fields: [{ name: 'search_vector', type: 'tsvector' }] });
    expect(missing.errors['fields.0.x-search']).toBeDefined();
    const wrong = checked({
      fields: [
        { name: 'count', type: 'integer' },
        { name: 'search_vector', type: 'tsvector', 'x-search': { fields: ['count'], language: 'klingon' } },
      ],
    });
    expect(wrong.errors['fields.1.x-search.fields']).toEqual([
      '"count" is not a string field of this table.',
    ]);
    expect(wrong.errors['fields.1.x-search.language']?.[0]).toContain('Unknown language "klingon"');
  });

  it('refuses tsvector fields under another name', () => {
    const { errors } = checked({
      fields: [{ name: 'words', type: 'tsvector', 'x-search': { fields: [], language: 'simple' } }],
    });
    expect(errors['fields.0.type']?.[0]).toContain('Only the field named search_vector');
  });

  it('refuses enum values of another type and min above max', () => {
    const { errors } = checked({
      fields: [{ name: 'level', type: 'integer', constraints: { enum: [1, 'two'], minimum: 5, maximum: 1 } }],
    });
    expect(errors['fields.0.constraints.enum']?.[0]).toContain('"two"');
    expect(errors['fields.0.constraints']).toEqual(['Field "level": minimum is greater than maximum.']);
  });

  it('refuses unique on JSON fields and SET DEFAULT without a default on a required field', () => {
    const json = checked({ fields: [{ name: 'data', type: 'object', constraints: { unique: true } }] });
    expect(json.errors['fields.0.constraints.unique']).toBeDefined();
    const rule = checked({
      fields: [{ name: 'parent_id', type: 'string', format: 'uuid', constraints: { required: true } }],
      foreignKeys: [
        {
          fields: 'parent_id',
          reference: { resource: '', fields: 'id' },
          'x-actions': { onDelete: 'SET DEFAULT' },
        },
      ],
    });
    expect(rule.errors['foreignKeys.0.x-actions.onDelete']).toEqual([
      'SET DEFAULT needs a default for the required field "parent_id".',
    ]);
  });

  it('refuses a reference to fields that are not unique in the target', () => {
    const { errors } = checked({
      fields: [
        { name: 'name', type: 'string' },
        { name: 'parent_name', type: 'string' },
      ],
      foreignKeys: [{ fields: 'parent_name', reference: { resource: '', fields: 'name' } }],
    });
    expect(errors['foreignKeys.0.reference.fields']?.[0]).toContain('is not the primary key or a unique key');
  });
});

describe('hasUniqueSet', () => {
  it('finds keys, unique fields, unique keys and unique indexes in any order', () => {
    const { schema } = checked({
      fields: [
        { name: 'a', type: 'string', constraints: { unique: true } },
        { name: 'b', type: 'string' },
        { name: 'c', type: 'string' },
      ],
      uniqueKeys: [['b', 'c']],
      indexes: [{ fields: ['a', 'b'], unique: true }],
    });
    expect(hasUniqueSet(schema, ['id'])).toBe(true);
    expect(hasUniqueSet(schema, ['a'])).toBe(true);
    expect(hasUniqueSet(schema, ['c', 'b'])).toBe(true);
    expect(hasUniqueSet(schema, ['b', 'a'])).toBe(true);
    expect(hasUniqueSet(schema, ['b'])).toBe(false);
  });
});

describe('compileRecordValidators', () => {
  const { schema } = checked({
    fields: [
      { name: 'title', type: 'string', constraints: { required: true } },
      { name: 'status', type: 'string', constraints: { required: true, enum: ['a', 'b'] }, default: 'a' },
      { name: 'note', type: 'string', constraints: { enum: ['x'] } },
      { name: 'at', type: 'time' },
      { name: 'created_at', type: 'datetime' },
    ],
  });
  const validators = compileRecordValidators(schema);

  it('requires required fields without a default, never the generated key', () => {
    expect(check(validators.create, {})).toEqual({ title: ['This field is required.'] });
  });

  it('lets optional fields be null, enum included, and required ones not', () => {
    expect(check(validators.patch, { note: null })).toBeUndefined();
    expect(check(validators.patch, { title: null })).toEqual({ title: ['Must be of type string.'] });
  });

  it('reads time as a time of day without a zone', () => {
    expect(check(validators.patch, { at: '23:59' })).toBeUndefined();
    expect(check(validators.patch, { at: '24:00' })).toEqual({ at: ['Must be a valid time.'] });
  });

  it('prefixes bulk errors with the index', () => {
    expect(check(validators.create, { title: 1 }, '3')).toEqual({ '3.title': ['Must be of type string.'] });
  });
});

let tables = 0;

/**
 * A compiled table from a schema; `id` as given keeps the compile cache's key (it holds one per version), and
 * `updatedAt` as given stands for a definition that did not change (the catalog sets it with every change).
 */
function table(raw: RawTableSchema, id = `unit-${++tables}`, updatedAt = new Date().toISOString()) {
  const { schema } = checked(raw);
  const entry: CatalogEntry = {
    id,
    app_id: 1,
    name: 'things',
    physical_name: 'a1_things',
    description: '',
    definition: schema,
    layout: { table: 'a1_things', constraints: {} },
    version: 1,
    created_at: updatedAt,
    updated_at: updatedAt,
    site_identity: null,
    app_identity: null,
  };
  return compileTable('site_unit', entry);
}

describe('compileTable', () => {
  it('compiles once per version', () => {
    const at = '2024-05-06T07:08:09.123456Z';
    const first = table({ fields: [{ name: 'title', type: 'string' }] }, 'cached', at);
    const second = table({ fields: [{ name: 'title', type: 'string' }] }, 'cached', at);
    expect(second.validators).toBe(first.validators);
  });

  it('compiles another definition of the same version again (PostgreSQL restored to an earlier moment)', () => {
    const lost = table(
      { fields: [{ name: 'title', type: 'string' }] },
      'restored',
      '2024-05-06T07:08:09.000001Z',
    );
    const later = table(
      { fields: [{ name: 'mood', type: 'string' }] },
      'restored',
      '2024-05-07T07:08:09.000001Z',
    );
    expect(later.validators).not.toBe(lost.validators);
    expect([...later.fields.keys()]).toEqual(['id', 'mood']);
    expect(later.definition.fields.map((field) => field.name)).toEqual(['id', 'mood']);
    // The later one is what the cache holds now: asked again, it is not compiled again.
    const again = table(
      { fields: [{ name: 'mood', type: 'string' }] },
      'restored',
      '2024-05-07T07:08:09.000001Z',
    );
    expect(again.validators).toBe(later.validators);
  });

  it('shows records without the search vector, with JSON numbers and dates', () => {
    const things = table({
      fields: [
        { name: 'count', type: 'integer' },
        { name: 'price', type: 'number' },
        { name: 'day', type: 'date' },
        { name: 'title', type: 'string' },
        { name: 'search_vector', type: 'tsvector', 'x-search': { fields: ['title'], language: 'simple' } },
      ],
    });
    const row = {
      id: 'x',
      count: '12',
      price: '9.50',
      day: new Date('2024-05-06'),
      title: 't',
      search_vector: "'t':1",
    };
    expect(present(things, row)).toEqual({ id: 'x', count: 12, price: 9.5, day: '2024-05-06', title: 't' });
  });

  it('reads keys from text by the key type', () => {
    const uuidKeyed = table({ fields: [{ name: 'title', type: 'string' }] });
    expect(keyFromText(uuidKeyed, 'ABCDEF00-0000-4000-8000-000000000000')).toBe(
      'abcdef00-0000-4000-8000-000000000000',
    );
    expect(keyFromText(uuidKeyed, 'nope')).toBeUndefined();
    const intKeyed = table({ fields: [{ name: 'id', type: 'integer' }] });
    expect(keyFromText(intKeyed, '42')).toBe(42);
    expect(keyFromText(intKeyed, '4.2')).toBeUndefined();
  });
});

describe('filters', () => {
  const things = table({
    fields: [
      { name: 'count', type: 'integer' },
      { name: 'on', type: 'boolean' },
      { name: 'day', type: 'date' },
      { name: 'title', type: 'string' },
    ],
  });

  it('reads query-string values in the field types, leaving control parameters alone', () => {
    const conditions = filtersFromQuery(
      things,
      new URLSearchParams('count=3&on=false&day=2024-01-02&title=x&page=2&include_deleted=true'),
    );
    expect(
      conditions.map((condition) => [condition.field.name, condition.operator, condition.value]),
    ).toEqual([
      ['count', 'eq', 3],
      ['on', 'eq', false],
      ['day', 'eq', '2024-01-02'],
      ['title', 'eq', 'x'],
    ]);
  });

  it('refuses values of the wrong type, naming the parameter', () => {
    expect(() => filtersFromQuery(things, new URLSearchParams('count=x&day=yesterday'))).toThrowError(
      expect.objectContaining({ fields: { count: ['Must be an integer.'], day: ['Must be a valid date.'] } }),
    );
  });

  it('reads JSON filter objects, null meaning a missing value', () => {
    const conditions = filtersFromObject(things, { count: 3, title: null });
    expect(conditions.map((condition) => condition.value)).toEqual([3, null]);
    expect(() => filtersFromObject(things, { count: '3' })).toThrowError(
      expect.objectContaining({ fields: { 'filter.count': ['Must be of type integer.'] } }),
    );
    expect(() => filtersFromObject(things, [1])).toThrow();
  });
});
