import { build } from 'esbuild';
import { esmBanner, localOnly } from '../infra/bundling';

/**
 * The servers the bench measures, bundled the way the Lambdas are (esbuild, ESM) and run with plain `node`: no
 * TypeScript loader in the measured process, so its memory and CPU are the platform's own.
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
