import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildConsoleOnce } from '../console/build';
import { registry } from '../functions/registry';
import { ConfigError, loadConfig } from '../shared/config';
import { isRunning } from '../shared/host/local/data-dir-lock';
import { streamProgress } from '../shared/host/local/progress';
import { type LocalPlatform, startLocalPlatform } from '../shared/host/local/runtime';
import { LocalStartError } from '../shared/host/local/start-errors';
import { signInCommands } from '../shared/host/local/welcome';

/** `npm start`: the whole platform on this machine, on embedded stores, data under DATA_DIR. */
const out = (line = '') => process.stdout.write(`${line}\n`);
// Progress and problems go to stderr, so stdout carries only what a script might read (URL, credentials).
const err = (text: string) => process.stderr.write(text);

/** The console is served from its build (console/dist): the first start builds it (`npm run console` rebuilds). */
const consoleDist = join(import.meta.dirname, '..', 'console', 'dist');

async function start(): Promise<LocalPlatform> {
  try {
    const config = loadConfig();
    return await startLocalPlatform(config, registry, { progress: streamProgress(err) });
  } catch (error) {
    // Problems the person starting it can fix get one line, not a stack trace.
    if (error instanceof LocalStartError || error instanceof ConfigError) err(`${error.message}\n`);
    else err(`Tenantbase could not start: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  }
}

function printWelcome(platform: LocalPlatform, dataDir: string) {
  out(`Tenantbase listening on ${platform.baseUrl}  (data in ${dataDir}/)`);
  out(`API explorer: ${platform.baseUrl}/ninja-docs/   health: ${platform.baseUrl}/health`);
  out(`Console: ${platform.baseUrl}/console/`);
  const admin = platform.admin;
  if (admin) {
    out();
    out('Created the first superuser (shown once):');
    out(`  username: ${admin.user.username}   e-mail: ${admin.user.email}`);
    if (admin.generated) out(`  password: ${admin.password}`);
    else out('  password: the value of ADMIN_PASSWORD');
  }
  out();
  // Commands that run as printed: the generated password filled in on the start that made it, otherwise the
  // password read from ADMIN_PASSWORD in the shell they are pasted into (never printed by this process).
  const known = admin?.generated ? admin.password : undefined;
  out(
    known
      ? 'Try (in another shell):'
      : "Try (in another shell, with the superuser's password in ADMIN_PASSWORD; lost it? npm run reset-password -- admin):",
  );
  for (const line of signInCommands(platform.baseUrl, admin?.user.username ?? 'admin', known))
    out(`  ${line}`);
}

const platform = await start();

// The first SIGINT or SIGTERM stops: no new requests, those in flight finish (up to SHUTDOWN_DEADLINE_SECONDS),
// the stores close. A second one exits at once; the data directory's lock is released on any exit, and the embedded
// DynamoDB and the embedded PostgreSQL (a child process) stop when this process's pipes to them close.
let stopping = false;
async function stop(reason: string) {
  stopping = true;
  err(`\n${reason}: stopping… `);
  try {
    await platform.stop({
      onCut: (connections, seconds) =>
        err(`cut ${connections} connection${connections === 1 ? '' : 's'} still open after ${seconds} s; `),
    });
    err('HTTP server and stores closed, data directory released.\n');
    process.exit(0);
  } catch (error) {
    err(`failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!stopping) return stop(signal);
    err(`\n${signal} while stopping: exiting at once.\n`);
    process.exit(1);
  });
}

// Under `npm start` this process runs in a session of its own (setsid, package.json's start script), so that a
// terminal's Ctrl-C reaches it once, through npm, which relays SIGINT and SIGTERM to it. npm's end by any other
// cause (SIGKILL, the terminal closing: SIGHUP) reaches it not at all: it stops as on SIGTERM when npm is gone.
if (process.env.npm_lifecycle_event === 'start') {
  const npm = process.ppid;
  const watch = setInterval(() => {
    if (stopping || isRunning(npm)) return;
    clearInterval(watch);
    void stop(`npm start (process ${npm}) has ended`);
  }, 1000);
  watch.unref();
}

// Only once the signals are handled: whoever reads the welcome (a person, a supervisor, a test) may signal at once,
// and a signal before the handlers would end the process undrained, by the signal's default action.
// After the start, so that a start that fails (a taken port, a held directory) says only why.
if (!existsSync(join(consoleDist, 'manifest.json'))) {
  await streamProgress(err)
    .step('building the console', async () => buildConsoleOnce(consoleDist))
    .catch((error) => err(`The console could not be built (the API serves on): ${String(error)}\n`));
}
printWelcome(platform, platform.deps.config.dataDir);
