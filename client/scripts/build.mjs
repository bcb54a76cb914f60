// Builds the package's files into client/dist (docs/client.md, "Installing"): the sources compiled by tsc once as
// ES modules (dist/esm) and once as CommonJS modules (dist/cjs, marked by its own package.json), each with its
// declarations, so that `import` and `require` consumers, with `moduleResolution` `nodenext` or `bundler`, read
// code and types of one format (CommonJS through tsc's own interop with openapi-fetch's CommonJS build). `npm pack`
// runs it (prepack). typescript comes from the checkout's node_modules.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function compile(outDir, ...options) {
  const args = [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir, ...options];
  const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

rmSync(dist, { recursive: true, force: true });
compile(join(dist, 'esm'));
compile(join(dist, 'cjs'), '--module', 'commonjs', '--moduleResolution', 'node10', '--esModuleInterop');
writeFileSync(join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
process.stdout.write('client/dist: esm/ and cjs/, each with its declarations\n');
