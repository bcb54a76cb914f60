import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeRequest } from '../../bench/pipeline';
import { createHttpServer, listen, toEvent } from '../../shared/host/local/http-server';
import type { HttpEvent, HttpResponse } from '../../shared/http/handler';

/** What the event said before the local server read request targets itself: `new URL` and its `searchParams`. */
function viaUrl(target: string) {
  const url = new URL(target, 'http://localhost');
  const query: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(',');
  return {
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    queryStringParameters: Object.keys(query).length ? query : undefined,
  };
}

const targets = [
  '/',
  '/api/apps/shop/datatables/items/data/7c9e6679-7425-40de-944a-e07e2f6b1b2a/',
  '/api/apps/shop/datatables/items/data/?category=cat-3&page=2&page_size=25',
  '/a/./b',
  '/a/../b',
  '/a/%2e%2E/b',
  '/a/.%2e/b',
  '/a/%2E',
  '/.',
  '/a/..',
  '/a.b/c',
  '/a b',
  '/a%20b',
  '/a%2Fb',
  '/a%zzb',
  '/a%',
  '/a%2',
  '//evil.example/x',
  '/a\\b',
  '/a#fragment',
  '/a?x=1#fragment',
  '/a?',
  '/a??b=1',
  '/a?b=1&b=2&c',
  '/a?b=1&B=2',
  '/a?=1',
  '/a?&&',
  '/a?q=a b',
  '/a?q=a+b',
  "/a?q='x'",
  "/a/'x'",
  '/ä',
  '/a?x=ä',
  '/a?x=%zz',
  '/a?x=%',
  '/a?x=%2e.',
  '/a|b',
  '/a^b',
  '/a`b',
  '/a{b}',
  '/a"b',
  '/a<b>',
  '/a;b=c,d',
  "/a!$&'()*+,;=:@~_-",
  '/a?x=[1]&y={}&z=|^`',
  '/a?x=1/2?3',
  'http://other.example/x?y=1',
  '*',
];

describe('toEvent', () => {
  it.each(targets)('reads the target %j as the WHATWG URL parser does', (target) => {
    const event = toEvent(fakeRequest('GET', target, { host: '127.0.0.1:3000' }), Buffer.alloc(0));
    const expected = viaUrl(target);
    expect({
      rawPath: event.rawPath,
      rawQueryString: event.rawQueryString,
      queryStringParameters: event.queryStringParameters,
    }).toEqual(expected);
    expect(event.requestContext.http.path).toBe(expected.rawPath);
  });

  it('says the time of the request in ISO form and as an epoch', () => {
    const event = toEvent(fakeRequest('GET', '/a', {}), Buffer.alloc(0));
    expect(event.requestContext.time).toBe(new Date(event.requestContext.timeEpoch).toISOString());
  });

  it('takes the domain prefix from the host', () => {
    const prefix = (host: string | undefined) =>
      toEvent(fakeRequest('GET', '/', host === undefined ? {} : { host }), Buffer.alloc(0)).requestContext
        .domainPrefix;
    expect([
      prefix('api.example.com'),
      prefix('127.0.0.1:3000'),
      prefix('localhost:3000'),
      prefix(undefined),
    ]).toEqual(['api', '127', 'localhost:3000', 'localhost']);
  });
});

describe('the local HTTP server', () => {
  let server: Server;
  let baseUrl: string;
  const events: HttpEvent[] = [];
  let answer: HttpResponse;

  beforeAll(async () => {
    server = createHttpServer(
      async (event) => {
        events.push(event);
        return answer;
      },
      { corsOrigins: ['*'] },
    );
    baseUrl = await listen(server, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    events.length = 0;
    answer = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"data":"é"}' };
  });

  /** One request on its own connection; the body is sent in the chunks given (chunked unless a length is set). */
  function send(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    chunks: string[] = [],
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(`${baseUrl}${path}`, { method, headers, agent: false }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(parts),
          }),
        );
        response.on('error', reject);
      });
      request.on('error', reject);
      for (const chunk of chunks) request.write(chunk);
      request.end();
    });
  }

  it('gives a GET without a body no body, and answers with the length rather than in chunks', async () => {
    const response = await send('GET', '/api/items/1/');
    expect(events[0]?.body).toBeUndefined();
    expect(events[0]?.isBase64Encoded).toBe(false);
    expect(events[0]?.requestContext.http.method).toBe('GET');
    expect(response.status).toBe(200);
    expect(response.body.toString('utf8')).toBe('{"data":"é"}');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength('{"data":"é"}')));
    expect(response.headers['transfer-encoding']).toBeUndefined();
  });

  it('sends a large text body whole, with its length in bytes', async () => {
    // Large bodies go out as bytes, small ones as text: both with the length of their UTF-8 bytes.
    const text = JSON.stringify({ data: 'é€'.repeat(40_000) });
    answer = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: text };
    const response = await send('GET', '/api/items/');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(response.body.toString('utf8')).toBe(text);
  });

  it('reads the body of a GET sent in chunks', async () => {
    // node:http frames a GET's body only when told to.
    await send('GET', '/api/items/', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, [
      '{"a":',
      '1}',
    ]);
    expect(events[0]?.headers['transfer-encoding']).toBe('chunked');
    expect(events[0]?.body).toBe('{"a":1}');
  });

  it('reads a body of a declared length, and a binary one as base64', async () => {
    await send('POST', '/api/items/', { 'content-type': 'application/json', 'content-length': '7' }, [
      '{"a":1}',
    ]);
    expect(events[0]?.body).toBe('{"a":1}');
    await send('POST', '/api/files/', { 'content-type': 'application/octet-stream' }, ['\u0001\u0002']);
    expect(events[1]?.isBase64Encoded).toBe(true);
    expect(Buffer.from(events[1]?.body ?? '', 'base64')).toEqual(Buffer.from([1, 2]));
  });

  it('gives an empty body of a declared length no body', async () => {
    await send('POST', '/api/items/', { 'content-type': 'application/json', 'content-length': '0' });
    expect(events[0]?.body).toBeUndefined();
    expect(events[0]?.isBase64Encoded).toBe(false);
  });

  it('answers a HEAD without a body', async () => {
    const response = await send('HEAD', '/api/items/1/');
    expect(events[0]?.requestContext.http.method).toBe('HEAD');
    expect(events[0]?.body).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.body.length).toBe(0);
  });

  it('joins the values of a repeated query key with commas, and keeps the raw query', async () => {
    await send('GET', '/api/items/?tag=a&tag=b%2Cc&page=2&empty=');
    expect(events[0]?.rawQueryString).toBe('tag=a&tag=b%2Cc&page=2&empty=');
    expect(events[0]?.queryStringParameters).toEqual({ tag: 'a,b,c', page: '2', empty: '' });
  });

  it('keeps an encoded path encoded, and resolves dot segments', async () => {
    await send('GET', '/api/items/a%20b%2Fc/%C3%A4/');
    expect(events[0]?.rawPath).toBe('/api/items/a%20b%2Fc/%C3%A4/');
    await send('GET', '/api/other/../items/%2e/1/');
    expect(events[1]?.rawPath).toBe('/api/items/1/');
  });

  it('sends a 204 with neither body nor length, bytes with their length, and each cookie', async () => {
    answer = { statusCode: 204, headers: { 'x-request-id': 'r' } };
    const empty = await send('DELETE', '/api/items/1/');
    expect(empty.status).toBe(204);
    expect(empty.headers['content-length']).toBeUndefined();
    expect(empty.body.length).toBe(0);
    answer = {
      statusCode: 200,
      headers: { 'content-type': 'image/png' },
      body: Buffer.from([0, 255, 1]).toString('base64'),
      isBase64Encoded: true,
      cookies: ['a=1; Path=/', 'b=2; Path=/'],
    };
    const bytes = await send('GET', '/logo.png');
    expect(bytes.body).toEqual(Buffer.from([0, 255, 1]));
    expect(bytes.headers['content-length']).toBe('3');
    expect(bytes.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  });
});
