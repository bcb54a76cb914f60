import { buildConsole } from '../console/build';

/** `npm run console`: builds the console into console/dist (served at /console/ by the local server). */
const built = buildConsole();
for (const [file, bytes] of Object.entries(built.sizes))
  process.stdout.write(`console/dist/${file}  ${(bytes / 1024).toFixed(1)} KiB\n`);
