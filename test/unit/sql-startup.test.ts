import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSql } from '../../shared/sql/client';

/**
 * What the data-plane client sends in PostgreSQL's startup message (docs/deploying.md, "What pins an RDS Proxy
 * session"): only the user, the database and the encoding. RDS Proxy refuses `statement_timeout` there and PgBouncer
 * refuses every parameter it does not track; where a proxy accepts one, it is session state that pins. The session
 * settings are the roles' defaults instead (shared/sql/session-defaults.ts). A server on 127.0.0.1 reads the message
 * and answers with an error, so no real database is needed.
 */

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Starts a server that records the first startup message's parameters and refuses the connection. */
async function startupParameters(
  connect: (port: number) => ReturnType<typeof createSql>,
): Promise<Record<string, string>> {
  let received: (parameters: Record<string, string>) => void = () => {};
  const parameters = new Promise<Record<string, string>>((resolve) => {
    received = resolve;
  });
  server = createServer((socket: Socket) => {
    let buffer = Buffer.alloc(0);
    let answered = false;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      if (answered) return;
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length < 8) return;
      const length = buffer.readInt32BE(0);
      if (buffer.length < length) return;
      // Protocol 3.0: then name\0value\0 pairs, ended by a \0.
      const fields = buffer
        .subarray(8, length - 1)
        .toString('utf8')
        .split('\0');
      const found: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) found[fields[i] as string] = fields[i + 1] as string;
      received(found);
      answered = true;
      const message = Buffer.from('SFATAL\0C08P01\0Mrefused by the test\0\0');
      const error = Buffer.alloc(5);
      error.write('E');
      error.writeInt32BE(message.length + 4, 1);
      socket.end(Buffer.concat([error, message]));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const sql = connect(address.port);
  await sql`SELECT 1`.catch(() => {});
  await sql.end({ timeout: 1 });
  return parameters;
}

describe('the startup message', () => {
  it('of a DATABASE_URL client holds the user, the database and the encoding, nothing else', async () => {
    const sent = await startupParameters((port) =>
      createSql(`postgres://app:secret@127.0.0.1:${port}/platform`, 1),
    );
    expect(sent).toEqual({ user: 'app', database: 'platform', client_encoding: 'UTF8' });
  });

  it('of the cloud client (RDS Proxy endpoint) holds the same', async () => {
    const sent = await startupParameters((port) =>
      createSql(
        {
          host: '127.0.0.1',
          port,
          name: 'platform',
          user: 'platform_app',
          ssl: false,
          password: async () => 'secret',
        },
        1,
      ),
    );
    expect(sent).toEqual({ user: 'platform_app', database: 'platform', client_encoding: 'UTF8' });
  });
});
