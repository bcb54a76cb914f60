/**
 * Smoke test of a deployed (or local) platform: `npm run smoke -- <base-url>`, with an administrator's credentials
 * in SMOKE_USERNAME and SMOKE_PASSWORD (docs/deploying.md, "Smoke test"). It checks, through the public API only:
 * /health; sign-in; one read route of each endpoint group with and without its trailing slash; a data table round
 * trip and a secret round trip in an organization, site and app of its own; the user-creation path (a user created
 * by the administrator, who then signs in) and the event types; the invitation e-mail path (an invitation to SES's
 * mailbox simulator, which creates the invitee's placeholder account); the hosted pages; that unknown paths answer
 * 404. Then it deletes all it created through the public deletion routes (the users, then the organization with its
 * site, app, schema and invitation), waits for a deletion that answered 202 (handed to the deletion sweeper) to
 * finish, at most SMOKE_DELETION_WAIT_SECONDS (default 300), and checks that nothing it made is left. Exits 0 when
 * every check passed, 1 otherwise.
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
  /** How long to wait for a deletion that answered 202 to finish (default 300 s). */
  readonly deletionWaitSeconds?: number;
  /** Between two looks at a pending deletion (default 5 s). */
  readonly pollSeconds?: number;
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

  /** A request with the administrator's token, or as `as` says (`{}`: signed out). */
  async function call(
    method: string,
    path: string,
    body?: unknown,
    as: { token?: string | undefined } = { token },
  ): Promise<Answer & { type: string }> {
    const headers: Record<string, string> = {};
    if (as.token) headers.authorization = `Bearer ${as.token}`;
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
    return { status: response.status, body: parsed, type: response.headers.get('content-type') ?? '' };
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

  const stamp = `smoke-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
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
    // A second table stays for the organization's deletion: its site's schema is dropped by the cleanup.
    await check('data: a table left for the deletion to remove', async () => {
      const table = await call('POST', tables, {
        name: 'smoke_kept',
        schema: { fields: [{ name: 'title', type: 'string' }] },
      });
      if (table.status !== 201) return `create table: ${table.status}`;
      const record = await call('POST', `${tables}smoke_kept/data/`, { title: 'left for the deletion' });
      return expect(record, 201, 'create record');
    });
  }

  if (site) {
    // The secret and its type stay for the site's deletion, which removes them with their history: a secret
    // deleted on its own leaves its history behind (docs/lifecycle.md, "Known limits").
    await check('secrets: type, secret, read (removed with the site)', async () => {
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
      return JSON.stringify(read.body).includes('round-trip') ? undefined : 'the secret did not read back';
    });
  }

  // The user-creation path: PRE_USER_CREATE runs before the user is written, POST_USER_CREATE after (docs/events.md).
  // Registering a subscriber needs a function the stack may invoke (a Lambda in EVENT_FUNCTION_ACCOUNT named with
  // EVENT_FUNCTION_PREFIX), which a smoke test of the public API does not have: the events run without subscribers.
  const users: { id: number; username: string }[] = [];
  await check('events: PRE_USER_CREATE and POST_USER_CREATE are listed', async () => {
    const listed = await call('GET', '/api/cloud/events/');
    const text = JSON.stringify(listed.body);
    return (
      expect(listed, 200, 'events') ??
      (text.includes('PRE_USER_CREATE') && text.includes('POST_USER_CREATE') ? undefined : `events: ${text}`)
    );
  });
  if (app)
    await check("events: the app's POST_USER_CREATE subscribers (none)", async () =>
      expect(await call('GET', `/api/apps/${app}/events/POST_USER_CREATE/`), 200, 'subscribers'),
    );
  const password = `Smoke-${stamp}-Velvet-Harbor-42`;
  await check('accounts: create a user (the user-creation events), who signs in', async () => {
    const created = await call('POST', '/api/cloud/users/', {
      email: `${stamp}@example.com`,
      username: stamp,
      password,
      first_name: 'Smoke',
      last_name: 'Test',
    });
    if (created.status !== 201) return `create user: ${created.status} ${JSON.stringify(created.body)}`;
    users.push({ id: created.body.id, username: created.body.username });
    const signIn = await call('POST', '/api/auth/jwt/token/', { username: stamp, password }, {});
    return expect(signIn, 200, 'the new user signs in');
  });

  let invitation: string | undefined;
  if (organization)
    await check('invitations: invite an address (the invitation e-mail), list it', async () => {
      // SES's mailbox simulator accepts the message without delivering it, in the sandbox too.
      const invitee = `success+${stamp}@simulator.amazonses.com`;
      const created = await call('POST', `/api/cloud/organizations/${organization}/invitations/`, {
        invitee_identifier: invitee,
      });
      if (created.status !== 201) return `invite: ${created.status} ${JSON.stringify(created.body)}`;
      invitation = created.body.uuid;
      // A new address gets an inactive placeholder account, deleted below with the other users.
      const found = await call('GET', `/api/cloud/users/?search=${encodeURIComponent(invitee)}`);
      const accounts = (found.body?.results ?? []) as { id: number; username: string; email: string }[];
      const account = accounts.find((user) => user.email === invitee);
      if (!account) return `no account for ${invitee}: ${found.status}`;
      users.push({ id: account.id, username: account.username });
      const listed = await call('GET', `/api/cloud/organizations/${organization}/invitations/`);
      if (listed.status !== 200) return `list: ${listed.status}`;
      return JSON.stringify(listed.body).includes(String(invitation))
        ? undefined
        : 'the list does not hold it';
    });

  await check('pages: the sign-in page, the account redirect, an unknown invitation link', async () => {
    const signInPage = await call(
      'GET',
      `/sign-in${site ? `?site=${encodeURIComponent(site)}` : ''}`,
      undefined,
      {},
    );
    if (signInPage.status !== 200 || !signInPage.type.startsWith('text/html'))
      return `sign-in page: ${signInPage.status} ${signInPage.type}`;
    const account = await call('GET', '/account', undefined, {});
    if (account.status !== 303) return `account page signed out: expected 303, got ${account.status}`;
    const unknown = await call('GET', `/invitations/${'x'.repeat(43)}`, undefined, {});
    return unknown.status === 404 && unknown.type.startsWith('text/html')
      ? undefined
      : `unknown invitation link: ${unknown.status} ${unknown.type}`;
  });

  // Cleanup, whatever failed above: the users first (an organization's owner could not be deleted; these own none),
  // then the organization, which takes its site, app, data schema and invitations with it.
  const waitMs = (options.deletionWaitSeconds ?? 300) * 1000;
  const pollMs = (options.pollSeconds ?? 5) * 1000;
  const deleted = (answer: Answer) => answer.status === 204 || answer.status === 202;
  for (const user of users) {
    await check(`delete the user ${user.username}`, async () => {
      const answer = await call(
        'DELETE',
        `/api/cloud/users/${user.id}/?confirm=${encodeURIComponent(user.username)}`,
      );
      return deleted(answer) ? undefined : `delete user: ${answer.status}`;
    });
  }
  if (organization) {
    const slug = organization;
    await check('delete the organization (its site, app, schema and invitation)', async () => {
      const answer = await call(
        'DELETE',
        `/api/cloud/organizations/${slug}/?confirm=${encodeURIComponent(slug)}`,
      );
      if (!deleted(answer)) return `delete organization: ${answer.status}`;
      if (answer.status === 204) return undefined;
      // 202: the rest was handed to the deletion sweeper. The name is free again once the cleanup is done (a
      // create of it answers 409 deletion_pending until then): an organization of the same name is the probe,
      // and is deleted at once (it holds nothing).
      const deadline = Date.now() + waitMs;
      for (;;) {
        const probe = await call('POST', '/api/cloud/organizations/', { name: stamp });
        if (probe.status === 201) {
          const gone = await call(
            'DELETE',
            `/api/cloud/organizations/${probe.body.slug}/?confirm=${probe.body.slug}`,
          );
          return deleted(gone) ? undefined : `delete the probe organization: ${gone.status}`;
        }
        if (probe.status !== 409) return `probe: ${probe.status} ${JSON.stringify(probe.body)}`;
        if (Date.now() >= deadline) return `the deletion was not finished within ${waitMs / 1000} s`;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    });
  }

  await check('nothing the smoke test made is left', async () => {
    const left: string[] = [];
    if (organization) {
      if ((await call('GET', `/api/cloud/organizations/${organization}/`)).status !== 404)
        left.push(`organization ${organization}`);
      const listed = await call('GET', `/api/cloud/organizations/?page_size=100`);
      if (JSON.stringify(listed.body).includes(stamp)) left.push('an organization in the list');
    }
    if (site && (await call('GET', '/api/apps/')).status !== 404) left.push(`site ${site} (its apps answer)`);
    for (const user of users)
      if ((await call('GET', `/api/cloud/users/${user.id}/`)).status !== 404)
        left.push(`user ${user.username}`);
    const signIn = await call('POST', '/api/auth/jwt/token/', { username: stamp, password }, {});
    if (signIn.status === 200) left.push('the user still signs in');
    return left.length ? `left behind: ${left.join(', ')}` : undefined;
  });
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
  const wait = process.env.SMOKE_DELETION_WAIT_SECONDS;
  const checks = await runSmoke({
    baseUrl,
    username,
    password,
    ...(wait ? { deletionWaitSeconds: Number(wait) } : {}),
  });
  process.exit(checks.every((c) => c.ok) ? 0 : 1);
}

if (process.argv[1]?.endsWith('smoke.ts')) await main();
