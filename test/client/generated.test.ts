import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientFiles } from '../../bin/client-files';

describe('typed client: generated files', () => {
  it('match what the route table produces (run `npm run client` after changing routes)', async () => {
    const files = await clientFiles();
    expect(Object.keys(files).length).toBe(3);
    for (const [path, text] of Object.entries(files)) {
      expect(readFileSync(path, 'utf8'), `${path} is stale: run \`npm run client\``).toBe(text);
    }
  });
});
