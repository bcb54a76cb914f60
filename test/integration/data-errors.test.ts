import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** The error table of doc 3 (all rows but graph depth), through the record endpoints. */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
let members: string;
let author: { id: string };

const missingId = '33333333-3333-4333-8333-333333333333';
const fallbackId = '44444444-4444-4444-8444-444444444444';

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'authors', { fields: [{ name: 'name', type: 'string' }] });
  await createTable(tenant.owner, app, 'members', {
    fields: [
      { name: 'name', type: 'string', constraints: { required: true, minLength: 2, maxLength: 20 } },
      { name: 'email', type: 'string', format: 'email', constraints: { unique: true } },
      { name: 'role', type: 'string', constraints: { enum: ['admin', 'editor'] } },
      { name: 'age', type: 'integer', constraints: { minimum: 18, maximum: 120 } },
      { name: 'code', type: 'string', constraints: { pattern: '[A-Z]{3}-[0-9]{3}' } },
      { name: 'author_id', type: 'string', format: 'uuid' },
    ],
    foreignKeys: [{ fields: 'author_id', reference: { resource: 'authors', fields: 'id' } }],
  });
  members = dataPath(app, 'members');
  author = await insert(tenant.owner, app, 'authors', { name: 'Ann' });
});
afterAll(async () => {
  await platform.stop();
});

describe('400 Validation failed', () => {
  it('names a missing required field', async () => {
    const response = await tenant.owner.post(members, { email: 'a@example.com' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { name: ['This field is required.'] },
    });
  });

  it('names an enum violation', async () => {
    const response = await tenant.owner.post(members, { name: 'Al', role: 'owner' });
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { role: ['Must be one of: admin, editor, null.'] },
    });
  });

  it('names range violations', async () => {
    const young = await tenant.owner.post(members, { name: 'Al', age: 17 });
    const old = await tenant.owner.post(members, { name: 'Al', age: 121 });
    expect(young.body.details).toEqual({ age: ['Ensure this value is greater than or equal to 18.'] });
    expect(old.body.details).toEqual({ age: ['Ensure this value is less than or equal to 120.'] });
  });

  it('names length violations', async () => {
    const short = await tenant.owner.post(members, { name: 'A' });
    const long = await tenant.owner.post(members, { name: 'A'.repeat(21) });
    expect(short.body.details).toEqual({ name: ['Ensure this field has at least 2 characters.'] });
    expect(long.body.details).toEqual({ name: ['Ensure this field has no more than 20 characters.'] });
  });

  it('names a pattern violation, the pattern matching the whole value', async () => {
    const response = await tenant.owner.post(members, { name: 'Al', code: 'XABC-123' });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ code: ['Must match the pattern ^(?:[A-Z]{3}-[0-9]{3})$.'] });
    expect((await tenant.owner.post(members, { name: 'Al', code: 'ABC-123' })).status).toBe(201);
  });

  it('names a type and a format violation', async () => {
    const response = await tenant.owner.post(members, { name: 'Al', age: '30', email: 'not-an-email' });
    expect(response.body.details).toEqual({
      age: ['Must be of type integer or null.'],
      email: ['Must be a valid email.'],
    });
  });

  it('names an unknown field', async () => {
    const response = await tenant.owner.post(members, { name: 'Al', nickname: 'al' });
    expect(response.body.details).toEqual({ nickname: ['Unknown field.'] });
  });

  it('names a foreign key whose target is missing', async () => {
    const response = await tenant.owner.post(members, { name: 'Al', author_id: missingId });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { author_id: [`No "authors" record has id "${missingId}".`] },
    });
    expect((await tenant.owner.post(members, { name: 'Al', author_id: author.id })).status).toBe(201);
  });

  it('names every failing field of an update at once', async () => {
    const member = await insert(tenant.owner, app, 'members', { name: 'Bo' });
    const response = await tenant.owner.patch(`${members}${member.id}/`, {
      role: 'x',
      age: 5,
      author_id: missingId,
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details).sort()).toEqual(['age', 'role']);
    const fk = await tenant.owner.patch(`${members}${member.id}/`, { author_id: missingId });
    expect(fk.body.details).toEqual({ author_id: [`No "authors" record has id "${missingId}".`] });
  });

  it('returns 400 for a body that is neither object nor array', async () => {
    const response = await tenant.owner.post(members, 'text');
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
  });
});

describe('400 foreign key violation', () => {
  it('returns error, detail and field when a delete rule leaves a dangling key', async () => {
    await createTable(tenant.owner, app, 'folders', { fields: [{ name: 'name', type: 'string' }] });
    await insert(tenant.owner, app, 'folders', { id: fallbackId, name: 'inbox' });
    await createTable(tenant.owner, app, 'files', {
      fields: [{ name: 'folder_id', type: 'string', format: 'uuid', default: fallbackId }],
      foreignKeys: [
        {
          fields: 'folder_id',
          reference: { resource: 'folders', fields: 'id' },
          'x-actions': { onDelete: 'SET DEFAULT' },
        },
      ],
    });
    await insert(tenant.owner, app, 'files', {});
    const response = await tenant.owner.delete(`${dataPath(app, 'folders')}${fallbackId}/`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body).sort()).toEqual(['detail', 'error', 'field']);
    expect(response.body).toMatchObject({ error: 'Foreign key violation', field: 'folder_id' });
  });
});

describe('404 Record not found', () => {
  it('returns error and detail', async () => {
    const response = await tenant.owner.get(`${members}${missingId}/`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Record not found', detail: `No record with id "${missingId}".` });
  });
});

describe('409 unique constraint violation', () => {
  it('returns error, detail and field', async () => {
    await insert(tenant.owner, app, 'members', { name: 'Cy', email: 'cy@example.com' });
    const response = await tenant.owner.post(members, { name: 'Cy', email: 'cy@example.com' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'Unique constraint violation',
      detail: 'A record with this email already exists.',
      field: 'email',
    });
  });

  it('returns 409 for an update that takes a value another record holds', async () => {
    const other = await insert(tenant.owner, app, 'members', { name: 'Di', email: 'di@example.com' });
    const response = await tenant.owner.patch(`${members}${other.id}/`, { email: 'cy@example.com' });
    expect(response.status).toBe(409);
    expect(response.body.field).toBe('email');
  });
});

describe('422 business logic error', () => {
  it('refuses an upsert on fields without a unique constraint', async () => {
    const response = await tenant.owner.post(`${members}upsert/?unique_fields=name`, { name: 'Ed' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body).sort()).toEqual(['detail', 'error']);
  });
});

describe('403 Cannot delete record', () => {
  it('returns error and detail when a RESTRICT rule refuses the delete', async () => {
    const response = await tenant.owner.delete(`${dataPath(app, 'authors')}${author.id}/`);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: 'Cannot delete record',
      detail:
        'Records of table "members" still reference this record through author_id (ON DELETE RESTRICT).',
    });
  });
});

describe('401 without a token', () => {
  it('refuses anonymous requests', async () => {
    const response = await platform.api.forSite(tenant.site.slug).get(members);
    expect(response.status).toBe(401);
  });
});
