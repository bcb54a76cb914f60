import { build } from 'esbuild';
import { copyGroupAssets, esmBanner, handlerEntry, localOnly, nodeTarget } from '../infra/bundling';
import { groups, routesOf } from '../shared/http/routes';

/** `npm run build`: one minified ESM bundle with a source map per endpoint group, under dist/<group>/,
 * with the files a group reads at run time beside it. */
for (const group of Object.values(groups)) {
  if (routesOf(group.name).length === 0) continue;
  const result = await build({
    entryPoints: [handlerEntry(group.name)],
    outfile: `dist/${group.name}/index.mjs`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: nodeTarget,
    minify: true,
    sourcemap: true,
    mainFields: ['module', 'main'],
    banner: { js: esmBanner },
    external: localOnly,
    metafile: true,
    logLevel: 'warning',
  });
  copyGroupAssets(group.name, `dist/${group.name}`);
  const bytes = Object.values(result.metafile.outputs).reduce(
    (sum, output) => sum + (output.entryPoint ? output.bytes : 0),
    0,
  );
  process.stdout.write(
    `${group.name.padEnd(10)} dist/${group.name}/index.mjs  ${(bytes / 1024).toFixed(0)} KiB\n`,
  );
}
