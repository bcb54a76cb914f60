import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert, tablesPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** Hostile input through HTTP: every case is a 4xx in the group's envelope, never a 500 or a silent change. */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
let notes: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'notes', {
    fields: [
      { name: 's', type: 'string' },
      { name: 'n', type: 'number' },
      { name: 'meta', type: 'object' },
    ],
  });
  notes = dataPath(app, 'notes');
});
afterAll(async () => {
  await platform.stop();
});

function stringTable(pattern: string) {
  return { fields: [{ name: 'v', type: 'string', constraints: { pattern } }] };
}

describe('field patterns', () => {
  it('checks a catastrophic pattern in linear time, on both sides', async () => {
    await createTable(tenant.owner, app, 'redos', stringTable('(a+)+'));
    const path = dataPath(app, 'redos');
    const bad = await tenant.owner.post(path, { v: `${'a'.repeat(5_000)}!` });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual({ v: ['Must match the pattern ^(?:(a+)+)$.'] });
    expect((await tenant.owner.post(path, { v: 'a'.repeat(5_000) })).status).toBe(201);
  });

  it.each([
    ['a)|(b', 'not a regular expression on its own'],
    ['(a)\\1', 'a backreference'],
    ['(?=a)a', 'a lookahead'],
    ['(?<=a)b', 'a lookbehind'],
    ['\\bword', 'an escape whose meaning differs between engines'],
    ['a{1001}', 'a repeat beyond the limit'],
  ])('refuses the pattern %j (%s), naming the field', async (pattern) => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'bad_pattern',
      schema: stringTable(pattern),
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['schema.fields.0.constraints.pattern']);
    expect(response.body.details['schema.fields.0.constraints.pattern'][0]).toContain('"v"');
  });

  it('refuses a pattern with a NUL character, naming the field', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'nul_pattern',
      schema: stringTable('a\u0000'),
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['schema.fields.0.constraints.pattern']);
  });

  it('refuses a bad pattern on a field added later, naming it', async () => {
    const response = await tenant.owner.post(`${tablesPath(app)}notes/fields/`, {
      name: 'w',
      type: 'string',
      constraints: { pattern: 'a)|(b' },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('pattern');
  });
});

describe('keys that are Object.prototype names', () => {
  it('answers 400 for constructor and __proto__ in a login body', async () => {
    for (const raw of ['{"constructor": 1}', '{"__proto__": {"username": "admin"}}', '{"toString": 1}']) {
      const response = await platform.api.post('/api/auth/jwt/token/', undefined, {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
    }
  });

  it('names constructor and __proto__ as unknown fields of a record', async () => {
    const response = await tenant.owner.post(notes, undefined, {
      raw: '{"s": "x", "constructor": 1, "__proto__": {"s": "y"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    // JSON.parse keeps `__proto__` an own key; an object literal would set the prototype instead.
    expect(response.body.details).toEqual(
      JSON.parse('{"constructor": ["Unknown field."], "__proto__": ["Unknown field."]}'),
    );
  });

  it('names them as unknown fields of a filter', async () => {
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const response = await tenant.owner.get(`${notes}?${name}=1`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.details)).toEqual([name]);
    }
    const twice = await tenant.owner.get(`${notes}?__proto__=1&__proto__=2`);
    expect(twice.status).toBe(400);
  });
});

describe('values PostgreSQL cannot take', () => {
  it('refuses a NUL in a filter value', async () => {
    const response = await tenant.owner.get(`${notes}?s=%00`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['s']);
  });

  it('refuses a NUL in a JSON filter value, naming it', async () => {
    const filter = encodeURIComponent(JSON.stringify({ s: 'a\u0000' }));
    const response = await tenant.owner.delete(`${notes}?filter=${filter}`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['filter.s']);
  });

  it('refuses a lone surrogate in a JSON filter value and a filter nested too deep', async () => {
    const surrogate = await tenant.owner.delete(`${notes}?filter=${encodeURIComponent('{"s": "a\\ud800"}')}`);
    expect(surrogate.status).toBe(400);
    expect(Object.keys(surrogate.body.details)).toEqual(['filter.s']);
    const nested = `{"meta": ${'['.repeat(100)}${']'.repeat(100)}}`;
    const deep = await tenant.owner.delete(`${notes}?filter=${encodeURIComponent(nested)}`);
    expect(deep.status).toBe(400);
    expect(Object.keys(deep.body.details)).toEqual(['filter']);
  });

  it('answers 404 for a NUL in a record key', async () => {
    expect((await tenant.owner.get(`${notes}a%00b/`)).status).toBe(404);
  });

  it('refuses a page beyond the largest', async () => {
    const response = await tenant.owner.get(`${notes}?page=99999999999999999999`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['page']);
  });
});

describe('request bodies', () => {
  const json = { 'content-type': 'application/json' };

  it('refuses JSON nested 5,000 levels deep and more', async () => {
    for (const depth of [5_000, 50_000]) {
      const deep = `{"meta": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const response = await tenant.owner.post(notes, undefined, { raw: deep, headers: json });
      expect(response.status).toBe(400);
      expect(response.body.details.non_field_errors[0]).toContain('nested deeper');
      const login = await platform.api.post('/api/auth/jwt/token/', undefined, {
        raw: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
        headers: json,
      });
      expect(login.status).toBe(400);
      expect(login.body.non_field_errors[0]).toContain('nested deeper');
    }
  });

  it('refuses a number beyond a double instead of storing null', async () => {
    const response = await tenant.owner.post(notes, undefined, { raw: '{"n": 1e999}', headers: json });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['n']);
  });

  it('refuses a null body instead of creating an empty record', async () => {
    const response = await tenant.owner.post(notes, undefined, { raw: 'null', headers: json });
    expect(response.status).toBe(400);
    const list = await tenant.owner.get(notes);
    expect(
      list.body.data.filter((row: { s: unknown; n: unknown }) => row.s === null && row.n === null),
    ).toEqual([]);
  });

  it('refuses a body without a Content-Type, in the group envelope', async () => {
    const response = await fetch(`${platform.baseUrl}${notes}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.owner.token}`, 'x-site': tenant.site.slug },
      body: Buffer.from('{"s": "x"}'),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'Validation failed',
      details: { non_field_errors: ['Send the body as application/json.'] },
    });
  });

  it('refuses a lone surrogate, naming the field', async () => {
    const response = await tenant.owner.post(notes, undefined, { raw: '{"s": "a\\ud800b"}', headers: json });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['s']);
    const pair = await insert(tenant.owner, app, 'notes', { s: '😀' });
    expect(pair.s).toBe('😀');
  });
});

describe('bearer tokens', () => {
  it('refuses a header with anything after the token', async () => {
    const response = await platform.api.get(`/api/apps/${app}/datatables/`, {
      headers: { authorization: `Bearer ${tenant.owner.token} junk`, 'x-site': tenant.site.slug },
    });
    expect(response.status).toBe(401);
  });
});
