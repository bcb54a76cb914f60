import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql } from '../../shared/sql/client';

/**
 * The cloud's database client verifies the server: against a PostgreSQL-speaking TLS server with a certificate no
 * trusted root signed, the connection must fail on the certificate, where `ssl: 'require'` would carry on.
 */
let server: Server;
let port: number;
const handshakes: string[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const key = readFileSync(join(dir, 'key.pem'));
  const cert = readFileSync(join(dir, 'cert.pem'));
  server = createServer((socket: Socket) => {
    // PostgreSQL's SSLRequest (8 bytes), answered "S", then the TLS handshake on the same socket.
    socket.once('data', () => {
      socket.write('S');
      const tls = new TLSSocket(socket, { isServer: true, key, cert });
      tls.on('secure', () => handshakes.push('secure'));
      tls.on('error', () => handshakes.push('refused'));
      tls.on('data', () => tls.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => {
  server?.close();
});

const endpoint = () => ({
  host: '127.0.0.1',
  port,
  name: 'platform',
  user: 'platform_app',
  ssl: true,
  password: async () => 'not-a-secret',
});

describe('database TLS', () => {
  it('refuses a server whose certificate no trusted root signed', async () => {
    const sql = createSql(endpoint(), 1);
    await expect(sql`select 1`).rejects.toThrow(/self[- ]signed|certificate/i);
    await sql.end({ timeout: 1 });
    expect(handshakes).not.toContain('secure');
  });
});
