import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { clientFiles } from './client-files';

/** `npm run client`: regenerates the typed client's generated files from the route table (bin/client-files.ts). */
for (const [path, text] of Object.entries(await clientFiles())) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  process.stdout.write(`${path}: ${text.length} characters\n`);
}
