import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/groups';
import type { RouteDef } from '../../shared/api/route';
import { type FuzzRequest, requestsFor } from '../support/fuzz-arbitraries';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { paramValues, pathParams } from '../support/route-samples';
import { buildSecurityFixture, type SecurityFixture } from '../support/security-fixture';

/**
 * Fuzzing every route of the route table with fast-check (docs/security.md): bodies and query strings derived from
 * the route's schemas, with hostile keys and values, sent by a superuser so that they pass authorization and reach
 * validation and the operations. Never a 5xx, never database or stack text in an answer, and the server keeps
 * serving. Path segments include values longer than any stored key and integers beyond 2^53; bodies and queries
 * include unsafe integers; and requests whose head or body never arrives must be cut off by the server's request
 * deadline. `FUZZ_SEED` replays a run; `FUZZ_RUNS` sets the number of cases (at least 2,000).
 */

const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const totalRuns = Math.max(2000, Number(process.env.FUZZ_RUNS ?? 2000));
const runsPerRoute = Math.ceil(totalRuns / routes.length);
console.log(`fuzz: seed ${seed} (FUZZ_SEED=${seed} replays it), ${runsPerRoute} cases per route`);

/** The platform's request deadline in this file (REQUEST_TIMEOUT_MS; the head's is half of it). */
const requestDeadlineMs = 2000;
/**
 * The hang guard of each request: API Gateway's 30 s integration timeout. A request still unanswered then would
 * have been a 5xx in the cloud; it fails the case naming the request, instead of the whole run timing out.
 */
const answerGuardMs = 30_000;

let platform: TestPlatform;
let fixture: SecurityFixture;
let token: string;
let cases = 0;

beforeAll(async () => {
  // Small request deadlines (docs/local-runtime.md), so that the requests that never arrive end quickly.
  platform = await startTestPlatform({
    REQUEST_TIMEOUT_MS: String(requestDeadlineMs),
    REQUEST_HEADERS_TIMEOUT_MS: String(requestDeadlineMs / 2),
    // Sign-up open, so that its creation path is fuzzed too; no answer floor (each reset and sign-up would wait).
    SIGN_UP: 'open',
    PASSWORD_RESET_ANSWER_MS: '0',
  });
  fixture = await buildSecurityFixture(platform);
  token = platform.adminApi.token as string;
}, 120_000);
afterAll(async () => {
  await platform?.stop();
});

/** What an answer must never show: driver errors, SQLSTATE codes, stack frames, source paths. */
const leaks: [string, RegExp][] = [
  ['driver error', /PostgresError|pg_catalog|SQLSTATE|syntax error at or near/i],
  ['constraint text', /violates (?:check|unique|not-null|foreign key) constraint/i],
  ['stack frame', /\bat (?:async )?[\w$.<>]+ \([^)]*:\d+:\d+\)|\n\s+at /],
  ['source path', /node_modules|file:\/\/|\/work\/|\.ts:\d+/],
];

/** Path segments, already encoded, that no client should send: odd ids, NUL, invalid UTF-8, traversal. */
const hostileSegments = [
  '0',
  '-1',
  '99999999999999999999',
  '1e3',
  '1.5',
  '%201',
  '%00',
  "'%20OR%201%3D1%20--",
  '__proto__',
  'constructor',
  'ME',
  'x'.repeat(300),
  // Longer than any stored key may be (issue 36: DynamoDB's ValidationException was a 500).
  'x'.repeat(3000),
  encodeURIComponent('é'.repeat(700)),
  encodeURIComponent('😀'.repeat(300)),
  '9007199254740994',
  '1e20',
  '%F0%9F%98%80',
  '%25',
  '%ED%A0%80',
  '%FF',
  'a%2Fb',
];

/** A route that deletes the object its path names gets only hostile values there: the fixture must stay whole. */
function deletesPathObject(route: RouteDef): boolean {
  return route.method === 'DELETE' && /\}\/?$/.test(route.path);
}

function pathsOf(route: RouteDef): fc.Arbitrary<string> {
  const values = paramValues(fixture);
  const segments = pathParams(route).map((name) => {
    const own = values[name];
    if (own === undefined) throw new Error(`${route.operationId}: no value for path parameter {${name}}`);
    const hostile = fc.constantFrom(...hostileSegments);
    return deletesPathObject(route)
      ? hostile
      : fc.oneof({ weight: 3, arbitrary: fc.constant(encodeURIComponent(own)) }, hostile);
  });
  return fc.tuple(...segments).map((filled) => {
    let index = 0;
    return route.path.replace(/\{\w+\}/g, () => filled[index++] as string);
  });
}

async function send(route: RouteDef, path: string, request: FuzzRequest) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (request.site !== undefined) headers['x-site'] = request.site;
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  const hasBody = route.method !== 'GET' && request.body !== undefined;
  const url = `${platform.baseUrl}${path}${request.query ? `?${request.query}` : ''}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: route.method,
      headers,
      body: hasBody ? request.body : undefined,
      signal: AbortSignal.timeout(answerGuardMs),
    });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      throw new Error(`${route.method} ${path.slice(0, 200)} was held past ${answerGuardMs} ms`);
    throw error;
  }
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/**
 * Every request text sent so far in this file, raw and URL-decoded: a hostile string one case stored (a user's
 * first name, say) is legitimately shown by a later case's answer, and is not SQL the server leaked.
 */
const sentHistory: string[] = [];

function remember(sent: string): void {
  sentHistory.push(sent);
  try {
    sentHistory.push(decodeURIComponent(sent));
  } catch {
    // Not URL-encoded text: the raw form is enough.
  }
}

/** Every string of a JSON answer, keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsOf(inner)]);
  return [];
}

/** A string of the answer that holds SQL and is not, whole, something an earlier request sent to be stored. */
function unsentSql(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return /\bSELECT\s/i.test(text);
  }
  return stringsOf(parsed).some((value) => {
    if (!/\bSELECT\s/i.test(value)) return false;
    const encoded = JSON.stringify(value).slice(1, -1);
    return !sentHistory.some((sent) => sent.includes(value) || sent.includes(encoded));
  });
}

/** The leaks found in an answer; `SELECT` counts only when no request sent it to be echoed or stored. */
function leaksIn(text: string, sent: string): string[] {
  const found = leaks.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
  if (!/SELECT/i.test(sent) && unsentSql(text)) found.push('SQL text');
  return found;
}

function describeRequest(path: string, request: FuzzRequest): string {
  const body = typeof request.body === 'string' ? request.body.slice(0, 300) : String(request.body);
  return `${path}?${request.query.slice(0, 200)} [${request.contentType}] site=${request.site} ${body}`;
}

describe('fuzzing every route', () => {
  it.each(routes.map((route, index) => [`${route.method} ${route.path}`, route, index] as const))(
    '%s never fails or leaks',
    async (_, route, index) => {
      const site = fixture.a.tenant.site.slug;
      const recordSchema = {
        type: 'object',
        properties: { id: { type: 'integer' }, title: { type: 'string' }, code: { type: 'string' } },
      };
      const property = fc.asyncProperty(
        pathsOf(route),
        requestsFor(route, recordSchema, site),
        async (path, request) => {
          cases++;
          remember(`${path}?${request.query}${typeof request.body === 'string' ? request.body : ''}`);
          const response = await send(route, path, request);
          const what = `${response.status} ${response.text.slice(0, 300)} for ${describeRequest(path, request)}`;
          expect(response.status, what).toBeLessThan(500);
          if (response.type.includes('json')) {
            const sent = `${path}${request.query}${typeof request.body === 'string' ? request.body : ''}`;
            expect(leaksIn(response.text, sent), what).toEqual([]);
          }
        },
      );
      await fc.assert(property, { numRuns: runsPerRoute, seed: seed + index });
    },
    60_000,
  );

  it(`ran at least ${totalRuns} cases, and the server still serves`, async () => {
    expect(cases).toBeGreaterThanOrEqual(2000);
    const health = await platform.api.get('/health');
    expect(health.status).toBe(200);
    expect((await platform.adminApi.forSite(fixture.a.tenant.site.slug).get('/api/apps/')).status).toBe(200);
  });
});

/**
 * Sends a request's head and part of what it announces, then nothing: resolves with what the server sent once it
 * closed the connection. The test's timeout is the hang guard.
 */
function stall(head: string, partial: string): Promise<string> {
  const { hostname, port } = new URL(platform.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(`${head}${partial}`);
  });
}

describe('requests that never arrive are cut off by the request deadline', () => {
  const withBodies = routes.filter((route) => route.method !== 'GET');
  // Seeded: a replayed run stalls the same routes.
  const chosen = fc.sample(fc.shuffledSubarray(withBodies, { minLength: 8, maxLength: 8 }), {
    seed,
    numRuns: 1,
  })[0];

  it('a stalled body (Content-Length announces more) on 8 routes with bodies, and a stalled head', async () => {
    const cases: Promise<readonly [string, string]>[] = (chosen as RouteDef[]).map((route) => {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(paramValues(fixture)[name] ?? 'x'),
      );
      return stall(
        `${route.method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
          `X-Site: ${fixture.a.tenant.site.slug}\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n`,
        '{"name": "sta',
      ).then((received) => [`${route.method} ${route.path}`, received] as const);
    });
    cases.push(
      stall('GET /api/apps/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Unfinished: ', 'still typing').then(
        (received) => ['an unfinished head', received] as const,
      ),
    );
    for (const [what, received] of await Promise.all(cases)) {
      // Cut off: a 408 or a closed connection, never an answer of the operation (nor a 5xx).
      expect(received === '' || /^HTTP\/1\.1 408 /.test(received), `${what}: ${received.slice(0, 200)}`).toBe(
        true,
      );
    }
    // And the server still serves.
    expect((await platform.api.get('/health')).status).toBe(200);
  }, 60_000);
});

describe('cases the fuzzing found', () => {
  it('answers 404, not 500, for a table name with U+0000 in the path', async () => {
    const owner = fixture.a.tenant.owner;
    const tables = `/api/apps/${fixture.a.tenant.app.slug}/datatables/`;
    const answers = await Promise.all([
      owner.get(`${tables}%00/`),
      owner.get(`${tables}a%00b/data/`),
      owner.get(`${tables}%00/data/1/`),
      owner.patch(`${tables}%00/`, { description: 'x' }),
      owner.delete(`${tables}%00/`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
  });
});
