import type { Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, listen } from '../../shared/host/local/http-server';
import type { HttpEvent } from '../../shared/http/handler';

/**
 * The local server's deadlines for receiving a request (docs/local-runtime.md, "Request deadlines"), on real
 * sockets on 127.0.0.1: a client that stops sending its head, or announces more body than it sends, is cut off
 * (408, the connection closed) and never reaches the handler. Small deadlines keep it quick; the verdict is only
 * that the connection ends, with the test's timeout as a generous hang guard, so a slow machine changes nothing.
 */
let server: Server;
let port: number;
const events: HttpEvent[] = [];

beforeAll(async () => {
  server = createHttpServer(
    async (event) => {
      events.push(event);
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    },
    { corsOrigins: [], timeouts: { headersMs: 200, requestMs: 400 } },
  );
  const baseUrl = await listen(server, 0, '127.0.0.1');
  port = Number(new URL(baseUrl).port);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends `text` and never more; resolves with what the server sent once it closes the connection. */
function sendAndStall(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(text);
  });
}

describe('the local server cuts off requests that do not arrive', () => {
  it('a head that never ends: 408, the connection closed, the handler never called', async () => {
    const before = events.length;
    const received = await sendAndStall('GET /api/apps/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(events.length).toBe(before);
  }, 20_000);

  it('a body that never arrives (Content-Length announces more): the connection closed, the handler never called', async () => {
    const before = events.length;
    const received = await sendAndStall(
      'POST /api/apps/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na',
    );
    // Nothing was answered, or a 408: never the handler's answer.
    expect(received === '' || /^HTTP\/1\.1 408 /.test(received), received).toBe(true);
    expect(events.length).toBe(before);
  }, 20_000);

  it('a request that arrives whole is answered as usual', async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/api/apps/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": "x"}',
    });
    expect(answer.status).toBe(200);
  });
});
