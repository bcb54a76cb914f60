// Fails unless a vitest JSON report holds the named test file with every test of it passed and none skipped: a
// file that only runs in one CI pass (a condition on the environment) must not be skipped there unnoticed.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const [reportFile, testFile] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const result = report.testResults.find((entry) => entry.name === resolve(testFile));
const tests = result?.assertionResults ?? [];
const passed = tests.filter((test) => test.status === 'passed').length;
if (!result || passed === 0 || passed !== tests.length) {
  console.error(
    `${testFile}: ${passed} of ${tests.length} tests passed in ${reportFile} (expected all, and some)`,
  );
  process.exit(1);
}
console.log(`${testFile}: ${passed} tests passed`);
