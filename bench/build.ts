import { build } from 'esbuild';
import { esmBanner, localOnly } from '../infra/bundling';

/**
 * The servers the bench measures, bundled the way the Lambdas are (esbuild, ESM) and run with plain `node`: no
 * TypeScript loader in the measured process, so its memory and CPU are the platform's own. Whitespace and
 * comments are left out: with them the bundle (4.2 MB) kept six non-ASCII characters in a dependency's comments,
 * which made V8 hold the whole script source, for the life of the process, as a two-byte string (8 MB of heap);
 * without them it is 3.1 MB of ASCII. Names are kept, so CPU profiles (bench/profile-summary.ts) stay readable.
 */
export async function buildServers(): Promise<{ project: string; floor: string }> {
  const out = { project: 'bench/.build/local.mjs', floor: 'bench/.build/floor.mjs' };
  const entries = [
    { entry: 'bin/local.ts', outfile: out.project },
    { entry: 'bench/floor/server.ts', outfile: out.floor },
  ];
  await Promise.all(
    entries.map(({ entry, outfile }) =>
      build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        minifyWhitespace: true,
        sourcemap: true,
        mainFields: ['module', 'main'],
        banner: { js: esmBanner },
        external: localOnly,
        logLevel: 'warning',
      }),
    ),
  );
  return out;
}
