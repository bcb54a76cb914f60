import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { type DynoxideSettings, dynoxideSettings } from '../../config';

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

/** Where the Dynoxide binary came from: DYNOXIDE_BIN, the platform's npm package, or PATH. */
export type DynoxideSource = 'DYNOXIDE_BIN' | 'package' | 'PATH';

export type DynoxideChoice =
  | { readonly found: true; readonly binary: string; readonly source: DynoxideSource }
  | { readonly found: false; readonly message: string };

/** What the choice of a Dynoxide binary depends on: nothing else, so it is decided the same way everywhere. */
export interface DynoxideLookup {
  /** `process.platform` and `process.arch` (the npm package is `@dynoxide/<platform>-<arch>`). */
  readonly platform: string;
  readonly arch: string;
  /** DYNOXIDE_BIN: a binary named by the person starting it, tried first. */
  readonly setting: string | undefined;
  /** The directory of an installed package, or undefined when it is not installed. */
  readonly resolvePackage: (name: string) => string | undefined;
  /** The path of an executable of that name on PATH, or undefined. */
  readonly findOnPath: (name: string) => string | undefined;
}

/** The platforms Dynoxide publishes an npm package for (package.json lists each as an optional dependency). */
export const dynoxidePlatforms = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-x64'];

/**
 * Chooses the Dynoxide binary: DYNOXIDE_BIN when set (an explicit choice wins, even over an installed package),
 * else the platform's npm package, else `dynoxide` on PATH (what Homebrew installs). None: the message names the
 * three ways, and DYNAMODB_ENDPOINT, which needs no Dynoxide at all.
 */
export function chooseDynoxideBinary(lookup: DynoxideLookup): DynoxideChoice {
  const executable = lookup.platform === 'win32' ? 'dynoxide.exe' : 'dynoxide';
  if (lookup.setting) return { found: true, binary: lookup.setting, source: 'DYNOXIDE_BIN' };
  const platform = `${lookup.platform}-${lookup.arch}`;
  const pkg = `@dynoxide/${platform}`;
  const dir = dynoxidePlatforms.includes(platform) ? lookup.resolvePackage(pkg) : undefined;
  if (dir) return { found: true, binary: join(dir, executable), source: 'package' };
  const onPath = lookup.findOnPath(executable);
  if (onPath) return { found: true, binary: onPath, source: 'PATH' };
  const npm = dynoxidePlatforms.includes(platform)
    ? `${pkg} is not installed (npm installs it where the registry has it: run npm install)`
    : `Dynoxide publishes no npm package for ${platform}`;
  return {
    found: false,
    message:
      `No Dynoxide binary for the embedded DynamoDB: ${npm}, DYNOXIDE_BIN is not set and no ${executable} is ` +
      `on PATH. Either install Dynoxide (brew install nubo-db/tap/dynoxide, or a release binary) and put it on ` +
      `PATH or name it with DYNOXIDE_BIN=/path/to/${executable}, or set DYNAMODB_ENDPOINT to any DynamoDB ` +
      '(DynamoDB Local, or a real table).',
  };
}

/** The directory of an installed package, found from this module as Node.js would. */
function resolvePackage(name: string): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** The first executable file of that name in the directories of `searchPath` (PATH's syntax). */
export function findOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there, or not executable: the next directory
    }
  }
  return undefined;
}

/** The Dynoxide binary this machine offers, from the settings (shared/config.ts); throws the message when none. */
export function dynoxideBinary(settings: DynoxideSettings = dynoxideSettings()): {
  binary: string;
  source: DynoxideSource;
} {
  const choice = chooseDynoxideBinary({
    platform: process.platform,
    arch: process.arch,
    setting: settings.bin,
    resolvePackage,
    findOnPath: (name) => findOnPath(name, settings.searchPath),
  });
  if (!choice.found) throw new Error(choice.message);
  if (!existsSync(choice.binary))
    throw new Error(
      choice.source === 'DYNOXIDE_BIN'
        ? `DYNOXIDE_BIN names ${choice.binary}, which does not exist`
        : `Embedded DynamoDB binary missing at ${choice.binary} (from ${choice.source}): reinstall with npm ci`,
    );
  return choice;
}

/**
 * Runs Dynoxide (argv: the binary, then its arguments) and ties its life to the server's: it stops Dynoxide when its
 * standard input, a pipe from the server, closes, which happens whenever the server's process ends, a kill -9
 * included (Dynoxide itself does not read its standard input). It also stops it on SIGTERM, escalating to SIGKILL
 * after 5 s, and exits with Dynoxide's code. Dynoxide's output is passed through.
 */
const supervisor = `
const { spawn } = require('node:child_process');
const [binary, ...args] = process.argv.slice(1);
const child = spawn(binary, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 5000).unref();
};
process.stdin.on('end', stop).on('close', stop).on('error', stop).resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
child.on('error', (error) => {
  process.stderr.write('could not run: ' + error.message + '\\n');
  process.exit(127);
});
child.on('exit', (code) => process.exit(code ?? 1));
`;

/** How long a start may take before it is given up: Dynoxide starts in milliseconds; a minute is a hang. */
const startLimitMs = 60_000;

/**
 * Starts the embedded DynamoDB on 127.0.0.1 (Dynoxide: the DynamoDB API, transactions included, on SQLite).
 * `file` keeps the data on disk; without it the data lives in memory.
 */
export async function startEmbeddedDynamoDb(
  options: { file?: string; port?: number; settings?: DynoxideSettings } = {},
): Promise<EmbeddedService> {
  const port = options.port ?? (await freePort());
  const args = ['serve', '--host', '127.0.0.1', '--port', String(port)];
  if (options.file) {
    mkdirSync(dirname(options.file), { recursive: true });
    args.push('--db-path', options.file);
  }
  const { binary } = dynoxideBinary(options.settings);
  // Through the supervisor, on a pipe that only this process holds: when this process ends, however it ends, the
  // pipe closes and Dynoxide is stopped. Its own process group, so that a Ctrl-C in the terminal reaches only this
  // process, which stops Dynoxide after the requests in flight are answered.
  const child: ChildProcess = spawn(process.execPath, ['-e', supervisor, binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  // What it printed before it listened: for the error message; the last 4 KiB are enough.
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(deadline);
      child.stdout?.removeAllListeners('data');
      child.stderr?.removeAllListeners('data');
      child.removeAllListeners('error');
      child.removeAllListeners('exit');
      if (error) reject(error);
      else resolve();
    };
    // Started when it says so (an event, not a poll); a binary that never does is stopped after a minute.
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      done(
        new Error(`Embedded DynamoDB (${binary}) did not start within ${startLimitMs / 1000} s: ${output}`),
      );
    }, startLimitMs);
    const read = (chunk: Buffer | string) => {
      output = (output + String(chunk)).slice(-4096);
      if (output.includes('listening')) done();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('error', (error) =>
      done(new Error(`Embedded DynamoDB (${binary}) could not run: ${error.message}`)),
    );
    child.once('exit', (code) => done(new Error(`Embedded DynamoDB exited with code ${code}: ${output}`)));
  });
  // Its output after start is not read: drain it so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
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
