import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export interface EmbeddedService {
  /** Where clients connect. */
  readonly url: string;
  stop(): Promise<void>;
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The path of the embedded DynamoDB binary (npm package `@dynoxide/<platform>-<arch>`). */
export function dynoxideBinary(): string {
  const pkg = `@dynoxide/${process.platform}-${process.arch}`;
  try {
    return join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), 'dynoxide');
  } catch {
    throw new Error(
      `The embedded DynamoDB (${pkg}) is not installed for this platform; set DYNAMODB_ENDPOINT to any DynamoDB ` +
        '(DynamoDB Local, or a real table) instead.',
    );
  }
}

/**
 * Starts the embedded DynamoDB on 127.0.0.1 (Dynoxide: the DynamoDB API, transactions included, on SQLite).
 * `file` keeps the data on disk; without it the data lives in memory.
 */
export async function startEmbeddedDynamoDb(
  options: { file?: string; port?: number } = {},
): Promise<EmbeddedService> {
  const port = options.port ?? (await freePort());
  const args = ['serve', '--host', '127.0.0.1', '--port', String(port)];
  if (options.file) {
    mkdirSync(dirname(options.file), { recursive: true });
    args.push('--db-path', options.file);
  }
  const binary = dynoxideBinary();
  if (!existsSync(binary)) throw new Error(`Embedded DynamoDB binary missing at ${binary}`);
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  await new Promise<void>((resolve, reject) => {
    const deadline = setTimeout(
      () => reject(new Error(`Embedded DynamoDB did not start: ${output}`)),
      15_000,
    );
    const poll = setInterval(() => {
      if (output.includes('listening')) {
        clearTimeout(deadline);
        clearInterval(poll);
        resolve();
      }
    }, 20);
    child.once('exit', (code) => {
      clearTimeout(deadline);
      clearInterval(poll);
      reject(new Error(`Embedded DynamoDB exited with code ${code}: ${output}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
