// The test files that reach the SQL plane, one per line, for CI's PostgreSQL pass: every HTTP integration and
// browser test, and the unit and infra tests that start the platform or ask for the test database, except the
// files whose every platform starts without a data plane (`startTestPlatform(..., { dataPlane: false })`): those
// never open a connection, so a second run on PostgreSQL would test nothing the first did not.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const testFiles = (dir) =>
  readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((file) => file.endsWith('.test.ts'))
    .sort();

const reachesSql =
  /inject\('databaseUrl'\)|startTestPlatform|startLocalPlatform|memberships-fixture|security-fixture|support\/platform/;

function withoutDataPlane(source) {
  const starts = source.match(/startTestPlatform\(/g)?.length ?? 0;
  const withoutSql = source.match(/\{ dataPlane: false \}/g)?.length ?? 0;
  const otherStarts = /startLocalPlatform|memberships-fixture|security-fixture|inject\('databaseUrl'\)/.test(
    source,
  );
  return starts > 0 && withoutSql === starts && !otherStarts;
}

// `--without-browser` (the PgBouncer pass): the browser tests drive the same routes the HTTP tests send, so through
// the pooler they would prove nothing about the SQL path the HTTP tests do not, at a quarter of the pass's time.
const withoutBrowser = process.argv.includes('--without-browser');

const files = [
  ...testFiles('test/integration'),
  ...(withoutBrowser ? [] : testFiles('test/browser')),
  ...(existsSync('test/client') ? testFiles('test/client') : []),
  ...[...testFiles('test/unit'), ...testFiles('test/infra')].filter((file) =>
    reachesSql.test(readFileSync(file, 'utf8')),
  ),
].filter((file) => !withoutDataPlane(readFileSync(file, 'utf8')));
console.log(files.join('\n'));
