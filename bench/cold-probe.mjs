// Run by `npm run bench:cold` (bench/cold.ts) in a fresh Node.js process per sample: imports one group's bundled
// handler (COLD_HANDLER, a file URL), sends it COLD_EVENT (an API Gateway HTTP API event, JSON) once cold and
// COLD_WARM more times warm, and prints one JSON line: Node.js's own start (performance.now() when this module
// runs: the time since the process began), the import, the first request, each warm request, the statuses and RSS.
import { randomUUID } from 'node:crypto';

const started = performance.now();
const template = JSON.parse(process.env.COLD_EVENT ?? '{}');
const warmCount = Number(process.env.COLD_WARM ?? 5);
const event = () => {
  const now = Date.now();
  return {
    ...template,
    requestContext: {
      ...template.requestContext,
      requestId: randomUUID(),
      timeEpoch: now,
      time: new Date(now).toISOString(),
    },
  };
};
const context = () => ({ awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 29_000 });

const before = performance.now();
const { handler } = await import(process.env.COLD_HANDLER ?? '');
const imported = performance.now();
const first = await handler(event(), context());
const answered = performance.now();
const warm = [];
const statuses = [first.statusCode];
for (let n = 0; n < warmCount; n++) {
  const at = performance.now();
  const response = await handler(event(), context());
  warm.push(performance.now() - at);
  statuses.push(response.statusCode);
}
process.stdout.write(
  `${JSON.stringify({
    startMs: started,
    importMs: imported - before,
    firstMs: answered - imported,
    warmMs: warm,
    statuses,
    firstBody: first.statusCode >= 400 ? String(first.body).slice(0, 300) : undefined,
    rssMb: process.memoryUsage().rss / 1048576,
  })}\n`,
);
// The handler's pools (PostgreSQL, sockets) keep the loop alive, as a Lambda container's would: leave at once.
process.exit(0);
