import { rmSync, statSync } from 'node:fs';
import { groups, routesOf } from '../functions/groups';
import { bundleFiles } from '../infra/bundle-graph';
import { bundleGroup } from '../infra/bundling';

/** `npm run build`: one minified, code-split ESM bundle with source maps per endpoint group, under dist/<group>/,
 * with the files a group reads at run time beside it. `npm run size` also times their cold imports. */
const kib = (files: readonly string[]) =>
  (files.reduce((sum, file) => sum + statSync(file).size, 0) / 1024).toFixed(0);

for (const group of Object.values(groups)) {
  if (routesOf(group.name).length === 0) continue;
  const outdir = `dist/${group.name}`;
  rmSync(outdir, { recursive: true, force: true });
  const { metafile } = bundleGroup(group.name, outdir);
  if (!metafile) throw new Error('esbuild wrote no metafile');
  const files = bundleFiles(metafile);
  process.stdout.write(
    `${group.name.padEnd(10)} ${outdir}/index.mjs  ${kib(files.cold)} KiB at cold start, ${kib(files.lazy)} KiB on first use\n`,
  );
}
