import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { graphFloor } from './graph';
import { readSecret } from './secrets';

/**
 * The floor: the least a server can do to answer the bench's scenarios. `node:http` and `postgres` with prepared
 * statements, no authentication, no validation, no routing table, and the same SQL as the project against the
 * same physical table. The project's throughput over the floor's is the overhead the bench reports.
 *
 * Environment: DATABASE_URL, DATABASE_POOL_SIZE, PORT, HOST, FLOOR_SCHEMA, FLOOR_TABLE, FLOOR_PASSWORD, and SE1's
 * (bench/floor/secrets.ts).
 */

const env = process.env;
const schema = env.FLOOR_SCHEMA ?? '';
const table = env.FLOOR_TABLE ?? '';
const makersTable = env.FLOOR_MAKERS_TABLE ?? '';
const sql = postgres(env.DATABASE_URL ?? '', {
  max: Number(env.DATABASE_POOL_SIZE ?? 10),
  prepare: true,
  onnotice: () => {},
});
const from = sql`${sql(schema)}.${sql(table)}`;
// The project's column list: the schema's fields in order, the generated key first.
const columns = sql`"id", "title", "category", "price", "description", "maker_id", "created_at"`;
const makers = sql`${sql(schema)}.${sql(makersTable)}`;

/** The project's password parameters (shared/auth/passwords.ts): scrypt N=16384, r=8, p=1, 64-byte key. */
const scryptOptions: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const salt = randomBytes(16);

function derive(password: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, 64, scryptOptions, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

const storedKey = await derive(env.FLOOR_PASSWORD ?? '');

type Row = Record<string, unknown>;

/** Numeric comes back as text; the project shows it as a JSON number, so the floor does too. */
function shown(row: Row): Row {
  return { ...row, price: row.price === null ? null : Number(row.price) };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readJson(request: IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString() || '{}') as Row;
}

/** L1: the project's count and page queries for one equality filter. */
async function list(url: URL, response: ServerResponse): Promise<void> {
  const category = url.searchParams.get('category') ?? '';
  const page = Number(url.searchParams.get('page') ?? 1);
  const pageSize = Number(url.searchParams.get('page_size') ?? 100);
  const [count] = await sql`SELECT count(*)::integer AS total FROM ${from} WHERE "category" = ${category}`;
  const rows = await sql`SELECT ${columns} FROM ${from} WHERE "category" = ${category}
    ORDER BY "created_at", "id" LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`;
  send(response, 200, { data: rows.map(shown), total: count?.total ?? 0, page, page_size: pageSize });
}

/** Q1: two filters, a descending sort, page 2 of 25, and the total, sent together as the project does. */
async function query(url: URL, response: ServerResponse): Promise<void> {
  const category = url.searchParams.get('category') ?? '';
  const above = Number(url.searchParams.get('price_gt') ?? 0);
  const where = sql`"category" = ${category} AND "price" > ${above}`;
  const [[count], rows] = await Promise.all([
    sql`SELECT count(*)::integer AS total FROM ${from} WHERE ${where}`,
    sql`SELECT ${columns} FROM ${from} WHERE ${where} ORDER BY "price" DESC, "id" LIMIT 25 OFFSET 25`,
  ]);
  send(response, 200, { data: rows.map(shown), total: count?.total ?? 0, page: 2, page_size: 25 });
}

/** AG1: groups by category with count and sum, the number of groups as a window count in the same statement. */
async function aggregate(response: ServerResponse): Promise<void> {
  const rows =
    await sql`SELECT "category", count(*) AS count, sum("price") AS sum_price, count(*) OVER () AS total
    FROM ${from} GROUP BY "category" ORDER BY "category" LIMIT 100 OFFSET 0`;
  const data = rows.map((row) => ({
    category: row.category,
    count: Number(row.count),
    sum_price: Number(row.sum_price),
  }));
  send(response, 200, { data, total: Number(rows[0]?.total ?? 0) });
}

/** S1: a full-text search with rank and excerpt, best first, and the total. */
async function search(url: URL, response: ServerResponse): Promise<void> {
  const text = url.searchParams.get('search') ?? '';
  const q = sql`websearch_to_tsquery('english'::regconfig, ${text})`;
  const [[count], rows] = await Promise.all([
    sql`SELECT count(*)::integer AS total FROM ${from} WHERE "search_vector" @@ ${q}`,
    sql`SELECT ${columns}, ts_rank("search_vector", ${q}) AS rank,
      ts_headline('english'::regconfig, concat_ws(' ', "title", "description"), ${q}) AS excerpt
      FROM ${from} WHERE "search_vector" @@ ${q} ORDER BY rank DESC, "id" LIMIT 25 OFFSET 0`,
  ]);
  const data = rows.map((row) => ({ ...shown(row), rank: Number(row.rank) }));
  send(response, 200, { data, total: count?.total ?? 0, page: 1, page_size: 25 });
}

/** P1: a page of 25 and the total, then the makers of the page in one query. */
async function populate(response: ServerResponse): Promise<void> {
  const [[count], rows] = await Promise.all([
    sql`SELECT count(*)::integer AS total FROM ${from}`,
    sql`SELECT ${columns} FROM ${from} ORDER BY "created_at", "id" LIMIT 25 OFFSET 0`,
  ]);
  const keys = [...new Set(rows.map((row) => row.maker_id).filter((key) => key !== null))] as string[];
  const found =
    keys.length > 0 ? await sql`SELECT "id", "name" FROM ${makers} WHERE "id" = ANY(${keys})` : [];
  const byId = new Map(found.map((maker) => [maker.id, maker]));
  const data = rows.map((row) => ({ ...shown(row), maker: byId.get(row.maker_id) ?? null }));
  send(response, 200, { data, total: count?.total ?? 0, page: 1, page_size: 25 });
}

/** G1: one record by key. */
async function get(id: string, response: ServerResponse): Promise<void> {
  const [row] = await sql`SELECT ${columns} FROM ${from} WHERE "id" = ${id}`;
  if (row) send(response, 200, { data: shown(row) });
  else send(response, 404, { error: 'Record not found' });
}

/** C1: the project's INSERT … RETURNING of one record (fields in name order, as the project lists them). */
async function create(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const record = {
    category: body.category,
    description: body.description,
    price: body.price,
    title: body.title,
  } as Record<string, string>;
  const [row] =
    await sql`INSERT INTO ${from} ${sql(record, 'category', 'description', 'price', 'title')} RETURNING ${columns}`;
  send(response, 201, {
    status: 'success',
    message: 'Record created successfully.',
    data: shown(row as Row),
  });
}

/** A1: scrypt with the project's parameters against a stored key, in constant time. */
async function login(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const key = await derive(String(body.password ?? ''));
  if (timingSafeEqual(key, storedKey)) send(response, 200, { ok: true });
  else send(response, 401, { error: 'No active account found with the given credentials' });
}

/** SE1: `/secrets/{site}/{app}/{key}`, the project's secret item read and decrypted. */
async function secret(path: string, response: ServerResponse): Promise<void> {
  const [site = '', app = '', key = ''] = path.slice('/secrets/'.length).split('/').map(decodeURIComponent);
  const found = await readSecret(site, app, key);
  if (found) send(response, 200, found);
  else send(response, 404, { error: 'Secret not found' });
}

/** GR1-GR3, when the bench built the graph (FLOOR_GRAPH_TABLE, FLOOR_GRAPH_EDGES). */
const graph = env.FLOOR_GRAPH_TABLE
  ? graphFloor(sql, schema, env.FLOOR_GRAPH_TABLE, env.FLOOR_GRAPH_EDGES ?? '')
  : undefined;

async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://floor');
  const path = url.pathname;
  if (request.method === 'GET' && path === '/items') return list(url, response);
  if (request.method === 'GET' && path === '/items/query') return query(url, response);
  if (request.method === 'GET' && path === '/items/aggregate') return aggregate(response);
  if (request.method === 'GET' && path === '/items/search') return search(url, response);
  if (request.method === 'GET' && path === '/items/populate') return populate(response);
  if (request.method === 'GET' && path.startsWith('/items/'))
    return get(path.slice('/items/'.length), response);
  if (request.method === 'POST' && path === '/items') return create(request, response);
  if (request.method === 'POST' && path === '/login') return login(request, response);
  if (request.method === 'GET' && path.startsWith('/secrets/')) return secret(path, response);
  if (graph && request.method === 'GET' && path.startsWith('/graph/'))
    return graph(path, (status, body) => send(response, status, body));
  send(response, 404, { error: 'Not found' });
}

const server = createServer((request, response) => {
  route(request, response).catch((error: Error) => send(response, 500, { error: error.message }));
});
const host = env.HOST ?? '127.0.0.1';
server.listen(Number(env.PORT ?? 3100), host, () => {
  process.stdout.write(`Floor listening on http://${host}:${env.PORT}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    server.close();
    void sql.end({ timeout: 1 }).then(() => process.exit(0));
  });
