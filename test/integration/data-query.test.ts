import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** The query language of record lists (docs/data-tables.md, Query language): filters, JSON paths, sort, paging. */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
let products: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  products = dataPath(app, 'products');
  await createTable(tenant.owner, app, 'products', {
    fields: [
      { name: 'name', type: 'string' },
      { name: 'category', type: 'string' },
      { name: 'description', type: 'string' },
      { name: 'views', type: 'integer' },
      { name: 'rating', type: 'number' },
      { name: 'rating_count', type: 'integer' },
      { name: 'unit_price', type: 'number' },
      { name: 'in_stock', type: 'boolean' },
      { name: 'released_on', type: 'date' },
      { name: 'metadata', type: 'object' },
      { name: 'created_at', type: 'datetime' },
      { name: 'updated_at', type: 'datetime' },
      { name: 'is_deleted', type: 'boolean' },
    ],
  });
  const rows = await insert(tenant.owner, app, 'products', [
    {
      name: 'Alpha Widget',
      category: 'tools',
      description: 'A sturdy widget for running jobs',
      views: 10,
      rating: 4.5,
      rating_count: 1,
      unit_price: 9.5,
      in_stock: true,
      released_on: '2024-01-10',
      metadata: { specs: { weight: 5, color: 'red' }, brand: 'Acme' },
    },
    {
      name: 'beta gadget',
      category: 'Tools',
      description: 'Gadgets that run fast',
      views: 25,
      rating: 2,
      rating_count: 2,
      unit_price: 20,
      in_stock: false,
      released_on: '2024-02-10',
      metadata: { specs: { weight: 12, color: 'blue' } },
    },
    {
      name: 'Gamma Gizmo',
      category: 'toys',
      description: 'A toy gizmo with 100% fun',
      views: 40,
      rating: 3.5,
      rating_count: 3,
      unit_price: null,
      in_stock: true,
      released_on: '2024-03-10',
      metadata: { specs: { weight: 'heavy' }, brand: 'Zed' },
    },
    {
      name: 'Delta_Doohickey',
      category: 'toys',
      description: 'Running shoes are not widgets',
      views: 55,
      rating: 1,
      rating_count: 4,
      unit_price: 35.25,
      in_stock: null,
      released_on: '2024-04-10',
      metadata: null,
    },
    {
      name: 'epsilon',
      category: null,
      description: 'Nothing to see',
      views: 0,
      rating: null,
      rating_count: 5,
      unit_price: 1,
      in_stock: false,
      released_on: null,
      metadata: { brand: 'acme' },
    },
    { name: 'zeta', category: 'toys', views: 99, rating_count: 6 },
  ]);
  for (const row of rows) ids[row.name] = row.id;
  const removed = await tenant.owner.delete(`${products}${ids.zeta}/`);
  if (removed.status !== 204) throw new Error(`soft delete: ${removed.status}`);
});
afterAll(async () => {
  await platform.stop();
});

const A = 'Alpha Widget';
const B = 'beta gadget';
const C = 'Gamma Gizmo';
const D = 'Delta_Doohickey';
const E = 'epsilon';

async function names(query: string): Promise<string[]> {
  const response = await tenant.owner.get(`${products}?${query}`);
  if (response.status !== 200) throw new Error(`${query}: ${response.status} ${response.text}`);
  return response.body.data.map((record: { name: string }) => record.name).sort();
}

async function ordered(query: string): Promise<string[]> {
  const response = await tenant.owner.get(`${products}?${query}`);
  if (response.status !== 200) throw new Error(`${query}: ${response.status} ${response.text}`);
  return response.body.data.map((record: { name: string }) => record.name);
}

const sorted = (...values: string[]) => [...values].sort();

describe('filter operators, in both separator spellings', () => {
  const cases: [string, string[]][] = [
    ['views=25', [B]],
    ['views_gt=25', [C, D]],
    ['views_gte=25', [B, C, D]],
    ['views_lt=25', [A, E]],
    ['views_lte=10', [A, E]],
    ['views_ne=10', [B, C, D, E]],
    ['category_ne=toys', [A, B, E]],
    ['views_in=10,40', [A, C]],
    ['views_nin=10,40', [B, D, E]],
    ['category_in=tools', [A]],
    ['category_ins=tools', [A]],
    ['category_ina=TOOLS', [A, B]],
    ['category_nina=tools', [C, D, E]],
    ['name_contains=WIDGET', [A]],
    ['name_icontains=GAD', [B]],
    ['name_containss=Widget', [A]],
    ['name_containss=widget', []],
    ['name_ncontains=A', [E]],
    ['name_nicontains=e', [C]],
    ['name_ncontainss=A', [B, C, D, E]],
    ['name_startswith=alpha', [A]],
    ['name_istartswith=BETA', [B]],
    ['name_startswiths=alpha', []],
    ['name_nstartswith=g', [A, B, D, E]],
    ['name_endswith=ADGET', [B]],
    ['name_iendswith=O', [C]],
    ['name_endswiths=Gizmo', [C]],
    ['name_nendswith=Y', [A, B, C, E]],
    ['name_contains=_', [D]],
    ['description_contains=100%25', [C]],
    ['name_contains=%25', []],
    ['views_between=10,40', [A, B, C]],
    ['views_nbetween=10,40', [D, E]],
    ['released_on_between=2024-02-01,2024-03-31', [B, C]],
    ['unit_price_null=true', [C]],
    ['unit_price_nnull=true', [A, B, D, E]],
    ['in_stock_null=false', [A, B, C, E]],
    ['category_nnull=false', [E]],
    ['in_stock=true', [A, C]],
    ['in_stock_ne=true', [B, D, E]],
    ['rating_gt=3', [A, C]],
    ['rating_count_gt=3', [D, E]],
    ['created_at_gte=2000-01-01T00:00:00Z', [A, B, C, D, E]],
    ['category=toys&views_gt=45', [D]],
  ];
  it.each(cases)('%s', async (query, expected) => {
    expect(await names(query)).toEqual(sorted(...expected));
    const doubled = query.replace(
      /^(\w+?)_(gte?|lte?|ne|in|nin|ins|ina|nina|n?i?contains?s?|n?i?startswiths?|n?i?endswiths?|n?between|n?null)=/,
      '$1__$2=',
    );
    if (doubled !== query) expect(await names(doubled)).toEqual(sorted(...expected));
  });

  it('resolves the longest field name: rating_count_gt is rating_count > x, not rating', async () => {
    expect(await names('rating_count__gte=5')).toEqual([E]);
  });

  it('applies the same filters to a filtered PATCH', async () => {
    const response = await tenant.owner.patch(`${products}?views__gt=45&category=toys`, {
      description: 'Big',
    });
    expect(response.status).toBe(200);
    expect(response.body.data.map((record: { name: string }) => record.name)).toEqual([D]);
    await tenant.owner.patch(`${products}?views__gt=45&category=toys`, {
      description: 'Running shoes are not widgets',
    });
  });

  it.each([
    ['colour_gt=1', 'colour_gt', /Unknown field "colour_gt"/],
    ['views_gt=abc', 'views_gt', /integer/],
    ['views__between=1', 'views__between', /two values/],
    ['views_contains=1', 'views_contains', /text fields/],
    ['metadata_gt=1', 'metadata_gt', /path/],
    ['in_stock_null=maybe', 'in_stock_null', /true or false/],
    ['released_on_gt=yesterday', 'released_on_gt', /./],
    ['unit_price_lt=0x10', 'unit_price_lt', /number/],
    ['views_in=1,x', 'views_in', /integer/],
  ])('400 naming the parameter for %s', async (query, key, message) => {
    const response = await tenant.owner.get(`${products}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
    expect(response.body.details[key][0]).toMatch(message);
  });
});

describe('JSON fields', () => {
  it.each([
    ['metadata__specs__weight_gt=6', [B]],
    ['metadata__specs__weight__lte=5', [A]],
    ['metadata__specs__weight=heavy', [C]],
    ['metadata__brand=Acme', [A]],
    ['metadata__brand__icontains=acme', [A, E]],
    ['metadata__specs__color__in=red,blue', [A, B]],
    ['metadata__specs__weight__null=true', [D, E]],
    ['metadata__contains={"brand":"Zed"}', [C]],
    ['metadata__contains={"specs":{"color":"blue"}}', [B]],
    ['metadata__contained_by={"brand":"acme","x":1}', [E]],
    ['metadata__has_key=brand', [A, C, E]],
    ['metadata__has_any_keys=brand,nothing', [A, C, E]],
    ['metadata__has_all_keys=specs,brand', [A, C]],
    [`metadata__a'b"c__d;drop=1`, []],
  ])('%s', async (query, expected) => {
    expect(await names(encodeURI(query))).toEqual(sorted(...expected));
  });

  it('400 for containment that is not JSON', async () => {
    const response = await tenant.owner.get(`${products}?metadata__contains=nope`);
    expect(response.status).toBe(400);
    expect(response.body.details.metadata__contains).toEqual(['Must be JSON.']);
  });
});

describe('sorting', () => {
  it('sorts by _sort and _order', async () => {
    expect(await ordered('_sort=views&_order=desc')).toEqual([D, C, B, A, E]);
    expect(await ordered('_sort=views,name&_order=desc')).toEqual([D, C, B, A, E]);
  });

  it('sorts by ordering with a - prefix for descending, nulls last ascending', async () => {
    expect(await ordered('ordering=-views')).toEqual([D, C, B, A, E]);
    expect(await ordered('ordering=unit_price')).toEqual([E, A, B, D, C]);
  });

  it('prefers _sort over ordering', async () => {
    expect(await ordered('_sort=views&ordering=-views')).toEqual([E, A, B, C, D]);
  });

  it.each([
    ['_sort=nope', '_sort'],
    ['_sort=views;DROP TABLE x', '_sort'],
    ['_sort=views&_order=up', '_order'],
    ['_sort=views&_order=asc,desc', '_order'],
    ['ordering=metadata', 'ordering'],
    ['ordering=-"views"', 'ordering'],
  ])('400 for %s', async (query, key) => {
    const response = await tenant.owner.get(`${products}?${encodeURI(query)}`);
    expect(response.status).toBe(400);
    expect(response.body.details[key]).toBeDefined();
  });
});

describe('pagination', () => {
  it('pages by page and page_size, with total and X-Total-Count', async () => {
    const response = await tenant.owner.get(`${products}?_sort=views&page=2&page_size=2`);
    expect(response.body).toMatchObject({ total: 5, page: 2, page_size: 2 });
    expect(response.body.data.map((r: { name: string }) => r.name)).toEqual([B, C]);
    expect(response.headers.get('x-total-count')).toBe('5');
  });

  it('pages by _start and _end with meta', async () => {
    const response = await tenant.owner.get(`${products}?_sort=views&_start=1&_end=3`);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'meta', 'total']);
    expect(response.body.meta).toEqual({ offset: 1, limit: 2, count: 2, has_more: true });
    expect(response.body.data.map((r: { name: string }) => r.name)).toEqual([A, B]);
  });

  it('pages by limit and offset with meta', async () => {
    const response = await tenant.owner.get(`${products}?_sort=views&limit=2&offset=4`);
    expect(response.body.meta).toEqual({ offset: 4, limit: 2, count: 1, has_more: false });
    expect(response.body.data.map((r: { name: string }) => r.name)).toEqual([D]);
    expect(response.body.total).toBe(5);
  });

  it('takes _start/_end first, then limit/offset, then page', async () => {
    const both = await tenant.owner.get(`${products}?_sort=views&_start=0&_end=1&limit=3&page=2`);
    expect(both.body.data.map((r: { name: string }) => r.name)).toEqual([E]);
    const offset = await tenant.owner.get(`${products}?_sort=views&limit=1&offset=1&page=3&page_size=1`);
    expect(offset.body.data.map((r: { name: string }) => r.name)).toEqual([A]);
  });

  it.each([
    ['limit=1001', 'limit'],
    ['_start=5&_end=2', '_end'],
    ['_start=0&_end=1001', '_end'],
    ['offset=-1', 'offset'],
    ['page_size=0', 'page_size'],
  ])('400 for %s', async (query, key) => {
    const response = await tenant.owner.get(`${products}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.details[key]).toBeDefined();
  });
});

describe('soft-delete visibility', () => {
  it('hides soft-deleted records unless include_deleted or only_deleted', async () => {
    expect(await names('category=toys')).toEqual(sorted(C, D));
    expect(await names('category=toys&include_deleted=true')).toEqual(sorted(C, D, 'zeta'));
    expect(await names('only_deleted=true')).toEqual(['zeta']);
  });

  it('reads a soft-deleted record only with include_deleted', async () => {
    expect((await tenant.owner.get(`${products}${ids.zeta}/`)).status).toBe(404);
    const response = await tenant.owner.get(`${products}${ids.zeta}/?include_deleted=true`);
    expect(response.status).toBe(200);
    expect(response.body.data.name).toBe('zeta');
  });

  it('counts soft-deleted records in aggregates only when asked', async () => {
    const live = await tenant.owner.get(`${products}?_aggregate=count(*)`);
    expect(live.body.aggregates).toEqual({ count: 5 });
    const all = await tenant.owner.get(`${products}?_aggregate=count(*)&include_deleted=true`);
    expect(all.body.aggregates).toEqual({ count: 6 });
    const gone = await tenant.owner.get(`${products}?_aggregate=count(*)&only_deleted=true`);
    expect(gone.body.aggregates).toEqual({ count: 1 });
  });
});

describe('aggregation', () => {
  it('aggregates every match without grouping', async () => {
    const response = await tenant.owner.get(
      `${products}?_aggregate=count(*),sum(views),avg(views),min(views),max(views),min(released_on)`,
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [],
      aggregates: {
        count: 5,
        sum_views: 130,
        avg_views: 26,
        min_views: 0,
        max_views: 55,
        min_released_on: '2024-01-10',
      },
    });
  });

  it('takes min and max of booleans and of uuid keys, and string_agg of uuids, which PostgreSQL has no such function for', async () => {
    const response = await tenant.owner.get(
      `${products}?_aggregate=min(in_stock),max(in_stock),min(id),max(id),string_agg(id)`,
    );
    expect(response.status).toBe(200);
    const listed = await tenant.owner.get(`${products}?page_size=100`);
    const ids = (listed.body.data as { id: string }[]).map((record) => record.id).sort();
    expect(response.body.aggregates).toEqual({
      min_in_stock: false,
      max_in_stock: true,
      min_id: ids[0],
      max_id: ids.at(-1),
      string_agg_id: expect.any(String),
    });
    expect(response.body.aggregates.string_agg_id.split(', ').sort()).toEqual(ids);
  });

  it('applies filters before aggregation, with the other functions', async () => {
    const response = await tenant.owner.get(
      `${products}?category=toys&_aggregate=array_agg(views),stddev(views),variance(views),string_agg(name),json_agg(views),count(unit_price)`,
    );
    const aggregates = response.body.aggregates;
    expect([...aggregates.array_agg_views].sort()).toEqual([40, 55]);
    expect(aggregates.stddev_views).toBeCloseTo(10.6066, 3);
    expect(aggregates.variance_views).toBeCloseTo(112.5, 6);
    expect(aggregates.string_agg_name.split(', ').sort()).toEqual(sorted(C, D));
    expect([...aggregates.json_agg_views].sort()).toEqual([40, 55]);
    expect(aggregates.count_unit_price).toBe(1);
  });

  it('groups, with total counting the groups', async () => {
    const response = await tenant.owner.get(`${products}?_group_by=in_stock&_aggregate=count(*),sum(views)`);
    expect(response.body).toEqual({
      data: [
        { in_stock: false, count: 2, sum_views: 25 },
        { in_stock: true, count: 2, sum_views: 50 },
        { in_stock: null, count: 1, sum_views: 55 },
      ],
      total: 3,
    });
  });

  it('pages groups, total counting every group even past the last page', async () => {
    const page = await tenant.owner.get(
      `${products}?_group_by=in_stock&_aggregate=count(*)&limit=1&offset=1`,
    );
    expect(page.body).toEqual({ data: [{ in_stock: true, count: 2 }], total: 3 });
    const past = await tenant.owner.get(
      `${products}?_group_by=in_stock&_aggregate=count(*)&limit=1&offset=5`,
    );
    expect(past.body).toEqual({ data: [], total: 3 });
    const none = await tenant.owner.get(`${products}?views_gt=1000&_group_by=in_stock&_aggregate=count(*)`);
    expect(none.body).toEqual({ data: [], total: 0 });
  });

  it('filters groups with _having, in both forms', async () => {
    const count = await tenant.owner.get(
      `${products}?_group_by=in_stock&_aggregate=count(*),sum(views)&_having=count__gt=1`,
    );
    expect(count.body.data.map((row: { in_stock: boolean }) => row.in_stock)).toEqual([false, true]);
    expect(count.body.total).toBe(2);
    const fraction = await tenant.owner.get(
      `${products}?_group_by=in_stock&_aggregate=count(*)&_having=count__gte=1.5`,
    );
    expect(fraction.body.total).toBe(2);
    const huge = await tenant.owner.get(
      `${products}?_group_by=in_stock&_aggregate=count(*)&_having=count__lt=1e300`,
    );
    expect(huge.body.total).toBe(3);
    const sum = await tenant.owner.get(
      `${products}?_group_by=in_stock&_aggregate=count(*),sum(views)&_having=sum_views__gte=50`,
    );
    expect(sum.body.data.map((row: { in_stock: boolean }) => row.in_stock)).toEqual([true, null]);
  });

  it.each([
    ['_aggregate=sum(views);drop table x', '_aggregate'],
    ['_aggregate=pg_sleep(views)', '_aggregate'],
    ['_aggregate=sum(name)', '_aggregate'],
    ['_aggregate=sum(*)', '_aggregate'],
    ['_aggregate=count(*)&_group_by=metadata', '_group_by'],
    ['_aggregate=count(*)&_group_by=x"y', '_group_by'],
    ['_aggregate=count(*)&_group_by=category&_having=count__gt=1;drop', '_having'],
    ['_aggregate=count(*)&_group_by=category&_having=drop__gt=1', '_having'],
    ['_aggregate=count(*)&_group_by=category&_having=string_agg_name__gt=1', '_having'],
    ['_group_by=category', '_aggregate'],
  ])('400 for %s', async (query, key) => {
    const response = await tenant.owner.get(`${products}?${encodeURI(query)}`);
    expect(response.status).toBe(400);
    expect(response.body.details[key]).toBeDefined();
  });
});
