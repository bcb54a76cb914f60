import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type PasswordReset, resetPassword } from '../shared/auth/local-password-reset';
import { buildDeps } from '../shared/compose/build-deps';
import { type Config, ConfigError, loadConfig } from '../shared/config';
import { type DataDirLock, lockDataDir } from '../shared/host/local/data-dir-lock';
import { type EmbeddedService, startEmbeddedDynamoDb } from '../shared/host/local/embedded-dynamodb';
import { DataDirLockedError } from '../shared/host/local/start-errors';

/**
 * `npm run reset-password -- <username or e-mail> [--password-stdin]`: a new password for a local user, from the
 * shell of the machine that holds the data (its owner is the authority there), for the superuser's password lost
 * after the first start printed it once. On the store `npm start` uses: the embedded DynamoDB of DATA_DIR, which
 * `npm start` must not be running on (the data directory's lock), or the DynamoDB of DYNAMODB_ENDPOINT. The password
 * is generated and printed once, or read from stdin with `--password-stdin`; the policy applies, the user's earlier
 * sessions and refresh tokens end, the account's sign-in lock is lifted (shared/auth/local-password-reset.ts).
 */
const usage = 'Usage: npm run reset-password -- <username or e-mail> [--password-stdin]';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
const fromStdin = args.includes('--password-stdin');
const logins = args.filter((arg) => arg !== '--password-stdin');
if (logins.length !== 1 || logins[0]?.startsWith('-')) fail(usage);
const login = logins[0] as string;

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}

/** The password given on stdin: everything read, without the line end that `echo` or a typed line adds. */
async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}
const given = fromStdin ? await readStdin() : undefined;

let lock: DataDirLock | undefined;
let dynamo: EmbeddedService | undefined;
let reset: PasswordReset;
try {
  if (!config.dynamodbEndpoint) {
    const dataDir = resolve(config.dataDir);
    const file = join(dataDir, 'dynamodb.sqlite');
    if (!existsSync(file))
      fail(
        `No local data in ${dataDir}: npm start has not run with this DATA_DIR (set DATA_DIR to the directory it used, or DYNAMODB_ENDPOINT to its DynamoDB).`,
      );
    try {
      lock = lockDataDir(dataDir);
    } catch (error) {
      if (error instanceof DataDirLockedError)
        fail(
          `The data directory ${error.dataDir} is in use by process ${error.pid} (npm start?): stop it, then run ` +
            'npm run reset-password again.',
        );
      throw error;
    }
    dynamo = await startEmbeddedDynamoDb({ file });
    config = { ...config, dynamodbEndpoint: dynamo.url };
  }
  reset = await resetPassword(buildDeps(config), login, given);
} catch (error) {
  await dynamo?.stop();
  lock?.release();
  fail(error instanceof Error ? error.message : String(error));
}
await dynamo?.stop();
lock?.release();
const { user } = reset;
if (reset.generated)
  process.stdout.write(`New password for ${user.username} <${user.email}> (shown once): ${reset.password}\n`);
else process.stdout.write(`Password of ${user.username} <${user.email}> changed.\n`);
process.stdout.write('Their earlier sessions and refresh tokens are ended.\n');
