import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { GraphFixture } from './graph-setup';

/**
 * Sets the project up through its API, the way a user would: sign in as the superuser, create an organization, a
 * site, an app, the `makers` table and the `items` data table (an index on `category`, a full-text search vector
 * and a foreign key to `makers`), then load records with bulk creates.
 */

export const tableName = 'items';
export const makersTable = 'makers';
/** Makers loaded before the items; each loaded item references one (P1 populates it). */
const makerCount = 20;
export const categories = Array.from({ length: 10 }, (_, index) => `cat-${index}`);

/** What the scenarios need to know about the loaded project. */
export interface Fixture {
  /** Users A1 signs in as, in turn; their password is `adminPassword`. */
  readonly users: readonly string[];
  readonly token: string;
  /** An API key of the bench site (change_site), for L1K and G1K. */
  readonly apiKey: string;
  readonly site: string;
  readonly app: string;
  readonly adminPassword: string;
  /** The physical table the project keeps the records in, which the floor reads too. */
  readonly schema: string;
  readonly physical: string;
  /** The physical table of `makers`, which the floor's P1 reads. */
  readonly makersPhysical: string;
  /** Keys of the loaded records (G1 picks from them). */
  readonly ids: readonly string[];
  /** SE1's private app-level secret. */
  readonly secretKey: string;
  /** U0, U1, U3: the site whose apps have that many PRE_USER_CREATE subscribers (the bench site has none). */
  readonly eventSites: Readonly<Record<number, string>>;
  readonly load: { records: number; seconds: number; recordsPerSecond: number };
  /** The graph scenarios' forest, when a GR scenario runs (bench/graph-setup.ts). */
  readonly graph?: GraphFixture;
}

/** The table schema of the bench: the generated id, a few fields, a maker, created_at, a search vector. */
export const itemsSchema = {
  fields: [
    { name: 'title', type: 'string', constraints: { required: true, maxLength: 200 } },
    { name: 'category', type: 'string', constraints: { required: true } },
    { name: 'price', type: 'number', constraints: { minimum: 0 } },
    { name: 'description', type: 'string' },
    { name: 'maker_id', type: 'string', format: 'uuid' },
    { name: 'created_at', type: 'datetime' },
    {
      name: 'search_vector',
      type: 'tsvector',
      'x-search': { fields: ['title', 'description'], language: 'english' },
    },
  ],
  foreignKeys: [
    {
      fields: 'maker_id',
      reference: { resource: makersTable, fields: 'id' },
      'x-actions': { onDelete: 'SET NULL' },
    },
  ],
  indexes: [{ fields: ['category'] }],
};

const colours = ['red', 'green', 'blue', 'black', 'white', 'yellow', 'grey'];
const things = ['chair', 'table', 'lamp', 'shelf', 'desk', 'sofa', 'bed', 'rug', 'clock', 'mirror', 'stool'];
const rooms = ['kitchen', 'garden', 'office', 'bedroom', 'hall'];

/** S1 searches two words that a seventy-seventh of the records hold together. */
export const searchWords = 'red chair';

export interface ItemRecord {
  title: string;
  category: string;
  price: number;
  description: string;
  maker_id?: string;
}

/** The n-th record of the bench's data: ten categories evenly spread; a maker when makers are given. */
export function itemRecord(n: number, makers: readonly string[] = []): ItemRecord {
  const record: ItemRecord = {
    title: `Item ${n}`,
    category: categories[n % categories.length] as string,
    price: (n % 1000) + 0.5,
    description: `A ${colours[n % colours.length]} ${things[n % things.length]} for the ${rooms[n % rooms.length]}`,
  };
  if (makers.length > 0) record.maker_id = makers[n % makers.length] as string;
  return record;
}

/** Records per bulk create: the API's limit (`maxBulkRecords` of the records module). */
const bulkSize = 1000;
/** Bulk creates in flight while loading. */
const loadConcurrency = 2;

/** A JSON answer of the API; the bench reads the few properties it needs. */
type Json = Record<string, unknown>;
type Answer = { status: number; body: Json };
type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

function caller(baseUrl: string, headers: Record<string, string>): Call {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
}

async function expect(call: Promise<Answer>, status: number, what: string): Promise<Json> {
  const response = await call;
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Signs in and returns the access token (also used to check the admin password). */
export async function login(baseUrl: string, password: string): Promise<string> {
  const body = await expect(
    caller(baseUrl, {})('POST', '/api/auth/jwt/token/', { username: 'admin', password }),
    200,
    'login',
  );
  return String(body.access);
}

/** Loads `count` records with bulk creates, a few in flight, and returns their keys and the rate. */
async function loadRecords(call: Call, path: string, count: number, makers: readonly string[]) {
  const ids: string[] = [];
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const first = next;
      next = Math.min(count, next + bulkSize);
      const batch = Array.from({ length: next - first }, (_, index) => itemRecord(first + index, makers));
      const body = await expect(call('POST', path, batch), 201, `bulk create at record ${first}`);
      for (const record of body.data as { id: string }[]) ids.push(record.id);
    }
  };
  await Promise.all(Array.from({ length: loadConcurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { ids, load: { records: count, seconds, recordsPerSecond: count / seconds } };
}

/** The site's schema and the table's physical name, from the project's own registry and catalog. */
async function physicalTable(
  databaseUrl: string,
  site: string,
): Promise<{ schema: string; physical: string; makersPhysical: string }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [registry] = await sql`SELECT schema_name FROM platform.data_site_schemas WHERE site = ${site}`;
    const schema = String(registry?.schema_name);
    const physicalOf = async (name: string) => {
      const [entry] = await sql`SELECT physical_name FROM ${sql(schema)}.catalog WHERE name = ${name}`;
      if (!entry) throw new Error(`no catalog entry for ${name} in ${schema}`);
      return String(entry.physical_name);
    };
    return { schema, physical: await physicalOf(tableName), makersPhysical: await physicalOf(makersTable) };
  } finally {
    await sql.end();
  }
}

/** Creates the tenant and the table through the API and loads the records. */
/** Sign-ins are throttled per account (a few in flight at once): A1 signs in as many users, as real traffic does. */
const loginUsers = 40;

async function createLoginUsers(admin: Call, password: string): Promise<string[]> {
  const names = Array.from({ length: loginUsers }, (_, index) => `bench-user-${index}`);
  for (const username of names)
    await expect(
      admin('POST', '/api/cloud/users/', { username, email: `${username}@example.com`, password }),
      201,
      'login user',
    );
  return names;
}

/** SE1's secret: a private type and an app-level secret of it (encrypted under a data key of its own). */
async function createSecret(inSite: Call, app: string): Promise<string> {
  await expect(
    inSite('POST', '/api/secret-types/', { name: 'Bench_Token', sensitivity_level: 'private' }),
    201,
    'secret type',
  );
  const key = 'bench-token';
  await expect(
    inSite('POST', '/api/secrets/', {
      secret_type: 'bench-token',
      key,
      app,
      value: { token: randomBytes(24).toString('base64url'), endpoint: 'https://payments.example.com' },
    }),
    201,
    'secret',
  );
  return key;
}

/** The trivial subscriber U1 and U3 run: the shipped example that accepts every user. */
const benchSubscriber = 'allow.mjs';

/** A site of the organization with an app whose `count` functions all subscribe to PRE_USER_CREATE. */
async function createEventSite(admin: Call, token: string, baseUrl: string, org: string, count: number) {
  const site = await expect(
    admin('POST', `/api/cloud/organizations/${org}/sites/`, { name: `Bench Events ${count}` }),
    201,
    'events site',
  );
  const inSite = caller(baseUrl, { authorization: `Bearer ${token}`, 'x-site': String(site.slug) });
  const app = await expect(inSite('POST', '/api/apps/', { name: 'Bench Events' }), 201, 'events app');
  for (let n = 0; n < count; n++) {
    const fn = await expect(
      inSite('POST', `/api/apps/${String(app.slug)}/functions/`, {
        name: `Accept ${n}`,
        target: benchSubscriber,
      }),
      201,
      'function',
    );
    const id = (fn.data as { id: number }).id;
    await expect(
      inSite('POST', '/api/cloud/events/PRE_USER_CREATE/subscribe/', { function_id: id }),
      200,
      'subscribe',
    );
  }
  return String(site.slug);
}

export async function prepareProject(
  baseUrl: string,
  databaseUrl: string,
  adminPassword: string,
  records: number,
): Promise<Fixture> {
  const token = await login(baseUrl, adminPassword);
  const admin = caller(baseUrl, { authorization: `Bearer ${token}` });
  const org = await expect(
    admin('POST', '/api/cloud/organizations/', { name: 'Bench' }),
    201,
    'organization',
  );
  const site = await expect(
    admin('POST', `/api/cloud/organizations/${String(org.slug)}/sites/`, { name: 'Bench Shop' }),
    201,
    'site',
  );
  const inSite = caller(baseUrl, { authorization: `Bearer ${token}`, 'x-site': String(site.slug) });
  const apiKey = await expect(
    admin('POST', `/api/cloud/organizations/${String(org.slug)}/sites/${String(site.slug)}/api-keys/`, {
      name: 'Bench backend',
      permissions: ['change_site'],
    }),
    201,
    'API key',
  );
  const app = await expect(inSite('POST', '/api/apps/', { name: 'Bench App' }), 201, 'app');
  const tables = `/api/apps/${String(app.slug)}/datatables/`;
  const makersSchema = { fields: [{ name: 'name', type: 'string' }] };
  await expect(inSite('POST', tables, { name: makersTable, schema: makersSchema }), 201, 'makers table');
  const makerNames = Array.from({ length: makerCount }, (_, index) => ({ name: `Maker ${index}` }));
  const makers = await expect(inSite('POST', `${tables}${makersTable}/data/`, makerNames), 201, 'makers');
  const makerIds = (makers.data as { id: string }[]).map((maker) => maker.id);
  await expect(inSite('POST', tables, { name: tableName, schema: itemsSchema }), 201, 'data table');
  const { ids, load } = await loadRecords(
    inSite,
    `/api/apps/${String(app.slug)}/datatables/${tableName}/data/`,
    records,
    makerIds,
  );
  const { schema, physical, makersPhysical } = await physicalTable(databaseUrl, String(site.slug));
  const users = await createLoginUsers(admin, adminPassword);
  const secretKey = await createSecret(inSite, String(app.slug));
  const eventSites: Record<number, string> = { 0: String(site.slug) };
  for (const count of [1, 3])
    eventSites[count] = await createEventSite(admin, token, baseUrl, String(org.slug), count);
  return {
    eventSites,
    secretKey,
    users,
    token,
    apiKey: String(apiKey.key),
    site: String(site.slug),
    app: String(app.slug),
    adminPassword,
    schema,
    physical,
    makersPhysical,
    ids,
    load,
  };
}
