import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { corsPreflightHeaders, corsResponseHeaders } from '../../cors';
import type { HttpEvent } from '../../http/handler';
import type { Dispatch } from './app';
import { PortInUseError } from './start-errors';

const maxBodyBytes = 6 * 1024 * 1024; // API Gateway's payload limit for Lambda

async function readBody(request: IncomingMessage): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) return 'too_large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const noBody = Buffer.alloc(0);

/**
 * Whether the request has a body to read: one framed by `Content-Length` (not 0) or `Transfer-Encoding`. A request
 * with neither has none (RFC 9112, 6.3), whatever its method, and node:http has already parsed all of it.
 */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A request target that the WHATWG URL parser would keep exactly as it is: an origin-form path of unreserved and
 * sub-delimiter characters and percent escapes, no `.` (so no dot segment, and no `%2e` either), no `\`, no `//` at
 * the start (a network path), then an optional query of the same characters and `/`, `?`, `.`. Anything else (and
 * the fragment a client should not send) goes through `new URL`.
 */
const plainTarget =
  /^\/(?!\/)(?:[A-Za-z0-9\-_~!$&'()*+,;=:@/]|%(?![2][eE])[0-9A-Fa-f]{2})*(?:\?(?:[A-Za-z0-9\-._~!$&()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?$/;

/** The path and the query (without its `?`) of a request target, as `new URL` reads them. */
function pathAndQuery(target: string): { path: string; query: string } {
  if (plainTarget.test(target)) {
    const mark = target.indexOf('?');
    return mark === -1
      ? { path: target, query: '' }
      : { path: target.slice(0, mark), query: target.slice(mark + 1) };
  }
  const url = new URL(target, 'http://localhost');
  return { path: url.pathname, query: url.search.slice(1) };
}

/** The query's parameters as API Gateway gives them: a repeated key's values joined with commas. */
function queryParameters(query: string): Record<string, string> | undefined {
  if (query === '') return undefined;
  // The constructor would drop a leading `?` of the query itself (`/a??b`: the key is `?b`).
  const params = new URLSearchParams(query.startsWith('?') ? `?${query}` : query);
  const parameters: Record<string, string> = {};
  let any = false;
  for (const key of new Set(params.keys())) {
    parameters[key] = params.getAll(key).join(',');
    any = true;
  }
  return any ? parameters : undefined;
}

/** `Date#toISOString` of the last instant asked for, which many requests share. */
let lastInstant = { millis: Number.NaN, text: '' };
function isoTime(millis: number): string {
  if (lastInstant.millis !== millis) lastInstant = { millis, text: new Date(millis).toISOString() };
  return lastInstant.text;
}

/** Builds the API Gateway HTTP API (payload 2.0) event that the cloud would send for this request. */
export function toEvent(request: IncomingMessage, body: Buffer): HttpEvent {
  const { path, query } = pathAndQuery(request.url ?? '/');
  const headers: Record<string, string> = {};
  const incoming = request.headers;
  for (const name of Object.keys(incoming)) {
    const value = incoming[name];
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // API Gateway tells the function the scheme it was called with (always https); this server says http, so that
  // absolute links (pagination) point back here. A proxy in front may already have said otherwise.
  headers['x-forwarded-proto'] ??= 'http';
  const textual =
    body.length > 0 &&
    /json|text|x-www-form-urlencoded/i.test(incoming['content-type'] ?? 'application/json');
  const now = Date.now();
  const host = headers.host ?? 'localhost';
  const dot = host.indexOf('.');
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: query,
    headers,
    cookies: incoming.cookie?.split(/;\s*/).filter(Boolean),
    queryStringParameters: queryParameters(query),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: host,
      domainPrefix: dot === -1 ? host : host.slice(0, dot),
      http: {
        method: request.method ?? 'GET',
        path,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: isoTime(now),
      timeEpoch: now,
    },
    body: body.length === 0 ? undefined : textual ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !textual,
  };
}

export interface HttpServerOptions {
  /** Origins whose browser apps may call the API (`*`: any). */
  corsOrigins: readonly string[];
  /** How long the head, and the whole request, may take to arrive (shared/config.ts, `requestTimeouts`). */
  timeouts?: { headersMs: number; requestMs: number };
}

/** API Gateway's: an HTTP API integration gets 30 s at most, so a request not received by then is never answered. */
const defaultTimeouts = { headersMs: 10_000, requestMs: 30_000 } as const;

/**
 * node:http's deadlines for receiving a request, as API Gateway has them rather than Node's (60 s for the head,
 * 300 s for the request, checked every 30 s, so a stalled head was cut after about 90 s and a stalled body held its
 * connection for minutes): the head within `headersMs`, the whole request, body included, within `requestMs`, and
 * the check often enough that a deadline is kept to within a quarter of the head's (at most a second late). A
 * request cut off is answered 408 when nothing was answered yet, and its connection closed either way.
 */
function serverTimeouts(timeouts: { headersMs: number; requestMs: number }) {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
  };
}

/** Statuses whose answers never carry a body (node:http sends none), and so no length either. */
function mayHaveBody(status: number): boolean {
  return status >= 200 && status !== 204 && status !== 304;
}

/** A CORS preflight: OPTIONS asking for a method. API Gateway answers these in the cloud; so does this server. */
function isPreflight(request: IncomingMessage): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
}

/** Bodies of this many characters or more are written as bytes, smaller ones as text (see the answer's write). */
const bytesFrom = 64 * 1024;

/**
 * A Node HTTP server that turns each request into an API Gateway event and calls the handlers in-process, with
 * the CORS handling that API Gateway does in the cloud.
 */
export function createHttpServer(dispatch: Dispatch, options: HttpServerOptions): Server {
  const server = createServer(
    serverTimeouts(options.timeouts ?? defaultTimeouts),
    async (request, response) => {
      const origin = request.headers.origin;
      if (draining.has(server)) {
        // Arrived after the stop began, on a connection that was kept alive: refused, and the connection closed.
        response.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
        response.end(JSON.stringify({ detail: 'The server is shutting down.' }));
        return;
      }
      if (isPreflight(request)) {
        response.writeHead(204, corsPreflightHeaders(options.corsOrigins, origin));
        response.end();
        return;
      }
      const cors = corsResponseHeaders(options.corsOrigins, origin);
      for (const name in cors) response.setHeader(name, cors[name] as string);
      try {
        const body = hasBody(request) ? await readBody(request) : noBody;
        if (body === 'too_large') {
          response.writeHead(413, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ detail: 'Request body too large.' }));
          return;
        }
        const result = await dispatch(toEvent(request, body));
        const status = result.statusCode ?? 200;
        const headers: Record<string, string | string[] | number> = {
          ...(result.headers as Record<string, string>),
        };
        if (result.cookies?.length) headers['set-cookie'] = result.cookies;
        // In flight when the stop began: answered, and the connection closed after the answer.
        if (draining.has(server)) headers.connection = 'close';
        // A large body as bytes: a JSON body is a string of parts (`JSON.stringify`), which its length and then its
        // write with the head would each copy into one more string of its size (docs/benchmarks.md, Memory). A small
        // one as text, which goes out with the head in one string (bytes cost it 1.5-2 µs more per request).
        const payload =
          result.body === undefined
            ? undefined
            : result.isBase64Encoded || result.body.length >= bytesFrom
              ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
              : result.body;
        // The length, as API Gateway sends it, rather than a chunked answer: one write of head and body.
        if (payload !== undefined && request.method !== 'HEAD' && mayHaveBody(status))
          headers['content-length'] ??=
            typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
        response.writeHead(status, headers);
        response.end(payload);
      } catch (error) {
        // The connection closed under the request (the client went away, or a stop cut it at its deadline): there is
        // no one to answer, and nothing went wrong here.
        if (request.socket.destroyed) return;
        process.stderr.write(
          `${JSON.stringify({ level: 'error', message: 'local server error', error: String(error) })}\n`,
        );
        if (!response.headersSent)
          response.writeHead(500, {
            'content-type': 'application/json',
            ...(draining.has(server) ? { connection: 'close' } : {}),
          });
        response.end(JSON.stringify({ detail: 'A server error occurred.' }));
      }
    },
  );
  return server;
}

/** The servers whose stop has begun: they answer no new request. */
const draining = new WeakSet<Server>();

/**
 * Stops the server taking requests and lets those in flight finish: it stops listening, closes the idle kept-alive
 * connections, answers each request in flight with `Connection: close` and any new request that still arrives on an
 * open connection with a 503 (and `Connection: close`). Connections still open after `deadlineMs` are cut.
 * Resolves with the number cut, once every connection is closed. Starts synchronously: from the call on, no
 * request gets through.
 */
export function drainHttpServer(server: Server, deadlineMs: number): Promise<{ cut: number }> {
  draining.add(server);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadlineMs);
  });
  return Promise.race([closed.then(() => 'drained' as const), deadline]).then(async (outcome) => {
    clearTimeout(timer);
    if (outcome === 'drained') return { cut: 0 };
    const open = await new Promise<number>((resolve) =>
      server.getConnections((_, count) => resolve(count ?? 0)),
    );
    server.closeAllConnections();
    await closed;
    return { cut: open };
  });
}

function rejectTaken(port: number, host: string, reject: (error: Error) => void) {
  return (error: NodeJS.ErrnoException) =>
    reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, host) : error);
}

/** Fails with a `PortInUseError` when the port is taken, so that a start can say so before its slow steps. */
export function assertPortFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', rejectTaken(port, host, reject));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** Starts listening; resolves with the base URL. */
export function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', rejectTaken(port, host, reject));
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve(`http://${host}:${address.port}`);
    });
  });
}
