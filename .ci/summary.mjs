// Prints vitest JSON reports as plain closing lines: one per run, then "Tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const total = { passed: 0, failed: 0, skipped: 0 };
for (const file of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const run = {
    passed: report.numPassedTests,
    failed: report.numFailedTests,
    skipped: report.numPendingTests + report.numTodoTests,
  };
  console.log(`${file.split('/').pop()}: ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`);
  for (const key of Object.keys(total)) total[key] += run[key];
}
console.log(`Tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
