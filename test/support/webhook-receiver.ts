import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook endpoint on 127.0.0.1 for the tests: keeps every POST it gets, answers what `answer` says. */
export interface ReceivedHook {
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface Receiver {
  url: string;
  host: string;
  received: ReceivedHook[];
  /** The status the next requests get (default 204); a function decides per request. */
  answer: (hook: ReceivedHook) => number;
  /** Waits until `predicate` holds over what was received; throws after `timeoutMs` (a hang guard). */
  until(predicate: (received: ReceivedHook[]) => boolean, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedHook[] = [];
  const receiver: Partial<Receiver> = { received, answer: () => 204 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      );
      const hook = { headers, body, json: JSON.parse(body) };
      const status = (receiver as Receiver).answer(hook);
      if (status >= 200 && status < 300) received.push(hook);
      response.writeHead(status).end(status >= 300 ? 'not now' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.host = `127.0.0.1:${port}`;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  receiver.until = async (predicate, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(received)) {
      if (Date.now() > deadline)
        throw new Error(`webhook receiver: condition not met; got ${received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return received;
  };
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver as Receiver;
}
