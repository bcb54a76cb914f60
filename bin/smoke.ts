/**
 * Smoke test of a deployed (or local) platform: `npm run smoke -- <base-url>`, with an administrator's credentials
 * in SMOKE_USERNAME and SMOKE_PASSWORD (docs/deploying.md, "Smoke test"). It checks, through the public API only:
 * /health; sign-in; one read route of each endpoint group with and without its trailing slash; a data table round
 * trip and a secret round trip in an organization, site and app of its own; that unknown paths answer 404. It
 * cleans up what it created (the table, the secret and its type; organizations have no delete route, so the
 * organization, site and app stay, named `smoke-<time>`). Exits 0 when every check passed, 1 otherwise.
 */

export interface SmokeCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface SmokeOptions {
  readonly baseUrl: string;
  readonly username: string;
  readonly password: string;
  /** Where each check's line goes (default console.log). */
  readonly report?: (line: string) => void;
}

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of every group's shape, read field by field.
  body: any;
}

/** Each request waits at most this long: a deployed stack answers within API Gateway's 30 s. */
const requestTimeoutMs = 30_000;

export async function runSmoke(options: SmokeOptions): Promise<SmokeCheck[]> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const report = options.report ?? ((line: string) => console.log(line));
  const checks: SmokeCheck[] = [];
  let token: string | undefined;
  let site: string | undefined;

  async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (site) headers['x-site'] = site;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (the API description's HTML page): kept as text.
    }
    return { status: response.status, body: parsed };
  }

  async function check(name: string, work: () => Promise<string | undefined>): Promise<boolean> {
    try {
      const problem = await work();
      checks.push(problem ? { name, ok: false, detail: problem } : { name, ok: true });
    } catch (error) {
      checks.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    }
    const last = checks[checks.length - 1] as SmokeCheck;
    report(`${last.ok ? 'ok  ' : 'FAIL'} ${name}${last.detail ? `: ${last.detail}` : ''}`);
    return last.ok;
  }

  const expect = (answer: Answer, status: number, what: string) =>
    answer.status === status ? undefined : `${what}: expected ${status}, got ${answer.status}`;

  await check('GET /health answers 200 with status ok', async () => {
    const answer = await call('GET', '/health');
    return expect(answer, 200, 'health') ?? (answer.body?.status === 'ok' ? undefined : 'status is not ok');
  });

  const signedIn = await check('sign-in with SMOKE_USERNAME and SMOKE_PASSWORD', async () => {
    const answer = await call('POST', '/api/auth/jwt/token/', {
      username: options.username,
      password: options.password,
    });
    token = typeof answer.body?.access === 'string' ? answer.body.access : undefined;
    return expect(answer, 200, 'token') ?? (token ? undefined : 'no access token');
  });

  for (const path of ['/ninja-openapi.json', '/.well-known/jwks.json']) {
    await check(`GET ${path}`, async () => expect(await call('GET', path), 200, path));
  }
  for (const path of ['/api/nothing-here/', '/no/such/path']) {
    await check(`GET ${path} answers 404`, async () => expect(await call('GET', path), 404, path));
  }
  if (!signedIn) return finish();

  const stamp = `smoke-${Date.now().toString(36)}`;
  let organization: string | undefined;
  let app: string | undefined;
  await check('create an organization, a site and an app', async () => {
    const org = await call('POST', '/api/cloud/organizations/', { name: stamp });
    if (org.status !== 201) return `organization: ${org.status}`;
    organization = org.body.slug;
    const created = await call('POST', `/api/cloud/organizations/${organization}/sites/`, { name: stamp });
    if (created.status !== 201) return `site: ${created.status}`;
    site = created.body.slug;
    const made = await call('POST', '/api/apps/', { name: stamp });
    if (made.status !== 201) return `app: ${made.status}`;
    app = made.body.slug;
    return undefined;
  });

  // One read route of each endpoint group, with and without the trailing slash (API Gateway matches them apart).
  const reads: [string, string][] = [
    ['accounts', '/api/cloud/users/me/'],
    ['organizations', '/api/cloud/organizations/'],
    ['events', '/api/cloud/events/'],
    ['roles', '/api/roles/'],
    ['secrets', '/api/secrets/'],
    ['tags', '/api/tags/'],
    ['apps', '/api/apps/'],
    ...(app ? ([['data', `/api/apps/${app}/datatables/`]] as [string, string][]) : []),
  ];
  for (const [group, path] of reads) {
    const bare = path.replace(/\/$/, '');
    await check(`${group}: GET ${path} and ${bare}`, async () => {
      const [slash, noSlash] = [await call('GET', path), await call('GET', bare)];
      return expect(slash, 200, path) ?? expect(noSlash, 200, bare);
    });
  }

  if (app) {
    const tables = `/api/apps/${app}/datatables/`;
    let tableCreated = false;
    await check('data: table, record, list, delete', async () => {
      const table = await call('POST', tables, {
        name: 'smoke_items',
        schema: { fields: [{ name: 'title', type: 'string', constraints: { required: true } }] },
      });
      if (table.status !== 201) return `create table: ${table.status}`;
      tableCreated = true;
      const data = `${tables}smoke_items/data/`;
      const record = await call('POST', data, { title: 'hello' });
      if (record.status !== 201) return `create record: ${record.status}`;
      const id = record.body?.data?.id;
      const list = await call('GET', data);
      if (list.status !== 200) return `list: ${list.status}`;
      if (!JSON.stringify(list.body).includes('hello')) return 'the list does not hold the record';
      const removed = await call('DELETE', `${data}${id}/`);
      return removed.status === 200 || removed.status === 204
        ? undefined
        : `delete record: ${removed.status}`;
    });
    if (tableCreated)
      await check('data: drop the table', async () => {
        const dropped = await call('DELETE', `${tables}smoke_items/`);
        return dropped.status === 200 || dropped.status === 204 ? undefined : `drop: ${dropped.status}`;
      });
  }

  if (site) {
    await check('secrets: type, secret, read, delete', async () => {
      const type = await call('POST', '/api/secret-types/', {
        name: 'Smoke_Token',
        sensitivity_level: 'private',
        schema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
      });
      if (type.status !== 201) return `create type: ${type.status}`;
      const created = await call('POST', '/api/secrets/', {
        secret_type: 'smoke-token',
        key: 'smoke',
        value: { token: 'round-trip' },
      });
      if (created.status !== 201) return `create secret: ${created.status}`;
      const read = await call('GET', '/api/secrets/smoke/');
      if (read.status !== 200) return `read secret: ${read.status}`;
      if (!JSON.stringify(read.body).includes('round-trip')) return 'the secret did not read back';
      const removed = await call('DELETE', '/api/secrets/smoke/');
      if (removed.status !== 200 && removed.status !== 204) return `delete secret: ${removed.status}`;
      const typeRemoved = await call('DELETE', '/api/secret-types/smoke-token/');
      return typeRemoved.status === 200 || typeRemoved.status === 204
        ? undefined
        : `delete type: ${typeRemoved.status}`;
    });
  }
  return finish();

  function finish(): SmokeCheck[] {
    const failed = checks.filter((c) => !c.ok).length;
    report(`${checks.length - failed} of ${checks.length} checks passed`);
    return checks;
  }
}

async function main(): Promise<void> {
  const baseUrl = process.argv[2];
  const username = process.env.SMOKE_USERNAME;
  const password = process.env.SMOKE_PASSWORD;
  if (!baseUrl || !username || !password) {
    console.error('usage: SMOKE_USERNAME=... SMOKE_PASSWORD=... npm run smoke -- <base-url>');
    process.exit(2);
  }
  const checks = await runSmoke({ baseUrl, username, password });
  process.exit(checks.every((c) => c.ok) ? 0 : 1);
}

if (process.argv[1]?.endsWith('smoke.ts')) await main();
