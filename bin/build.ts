import { rmSync } from 'node:fs';
import { bundleGroup } from '../infra/bundling';
import { groups, routesOf } from '../shared/http/routes';

/** `npm run build`: one minified, code-split ESM bundle with source maps per endpoint group, under dist/<group>/,
 * with the files a group reads at run time beside it (`npm run size` measures them). */
for (const group of Object.values(groups)) {
  if (routesOf(group.name).length === 0) continue;
  const outdir = `dist/${group.name}`;
  rmSync(outdir, { recursive: true, force: true });
  const result = bundleGroup(group.name, outdir);
  const bytes = Object.entries(result.metafile?.outputs ?? {})
    .filter(([file]) => file.endsWith('.mjs'))
    .reduce((sum, [, output]) => sum + output.bytes, 0);
  process.stdout.write(
    `${group.name.padEnd(10)} ${outdir}/index.mjs  ${(bytes / 1024).toFixed(0)} KiB with its chunks\n`,
  );
}
