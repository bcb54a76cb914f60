import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpEvent } from '../../http/handler';
import type { Dispatch } from './app';

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

/** Builds the API Gateway HTTP API (payload 2.0) event that the cloud would send for this request. */
export function toEvent(request: IncomingMessage, body: Buffer): HttpEvent {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(',');
  const textual = /json|text|x-www-form-urlencoded/i.test(
    request.headers['content-type'] ?? 'application/json',
  );
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    cookies: request.headers.cookie?.split(/;\s*/).filter(Boolean),
    queryStringParameters: Object.keys(query).length ? query : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body: body.length === 0 ? undefined : textual ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !textual,
  };
}

/** A Node HTTP server that turns each request into an API Gateway event and calls the handlers in-process. */
export function createHttpServer(dispatch: Dispatch): Server {
  return createServer(async (request, response) => {
    try {
      const body = await readBody(request);
      if (body === 'too_large') {
        response.writeHead(413, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ detail: 'Request body too large.' }));
        return;
      }
      const result = await dispatch(toEvent(request, body));
      response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
      response.end(
        result.body === undefined
          ? undefined
          : result.isBase64Encoded
            ? Buffer.from(result.body, 'base64')
            : result.body,
      );
    } catch (error) {
      process.stderr.write(
        `${JSON.stringify({ level: 'error', message: 'local server error', error: String(error) })}\n`,
      );
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ detail: 'A server error occurred.' }));
    }
  });
}

/** Starts listening; resolves with the base URL. */
export function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve(`http://${host}:${address.port}`);
    });
  });
}
