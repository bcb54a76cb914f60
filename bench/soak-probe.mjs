// Loaded into the server by `npm run soak` (node --import): every SOAK_PROBE_MS it appends one JSON line to
// SOAK_PROBE_FILE with the server's heap and its event-loop delay over the window. Nothing else runs in the server.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.SOAK_PROBE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  setInterval(
    () => {
      const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
      appendFileSync(
        file,
        `${JSON.stringify({
          heapUsedMb: mb(heapUsed),
          heapTotalMb: mb(heapTotal),
          externalMb: mb(external + arrayBuffers),
          loopDelayP99Ms: Math.round(delay.percentile(99) / 1e4) / 100,
          loopDelayMaxMs: Math.round(delay.max / 1e4) / 100,
        })}\n`,
      );
      delay.reset();
    },
    Number(process.env.SOAK_PROBE_MS || 10_000),
  ).unref();
}
