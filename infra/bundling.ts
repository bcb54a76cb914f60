/**
 * How each endpoint group is bundled: the same esbuild options for `npm run build` and for the CDK functions.
 * ESM (middy is ESM-only), minified, tree-shaken, with source maps; the AWS SDK v3 is bundled (pinned versions,
 * tree-shaken) rather than taken from the runtime.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { explorerAssetDirectory, explorerAssets } from '../shared/meta/explorer';

export const nodeTarget = 'node22';

export const esmBanner =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** Packages only the local runtime uses; never part of a Lambda bundle. */
export const localOnly = ['@electric-sql/pglite', '@electric-sql/pglite-socket', '@dynoxide/linux-x64'];

export function handlerEntry(group: string): string {
  return `functions/${group}/handler.ts`;
}

/**
 * Files a group reads at run time, copied beside its bundle (`<outdir>/<to>/<file>`): the explorer's scripts and
 * style sheets are served as they are, not bundled as code. Source paths are relative to the project root.
 */
export const groupAssets: Readonly<Record<string, { from: string; to: string; files: readonly string[] }>> = {
  meta: {
    from: 'node_modules/swagger-ui-dist',
    to: explorerAssetDirectory,
    files: Object.keys(explorerAssets),
  },
};

/** Copies a group's run-time files beside its bundle (used by `npm run build`). */
export function copyGroupAssets(group: string, outdir: string, root = '.'): void {
  const assets = groupAssets[group];
  if (!assets) return;
  mkdirSync(join(outdir, assets.to), { recursive: true });
  for (const file of assets.files) copyFileSync(join(root, assets.from, file), join(outdir, assets.to, file));
}

/** The same copy as shell commands, for the CDK's local esbuild bundling (`commandHooks.afterBundling`). */
export function copyGroupAssetsCommands(group: string, inputDir: string, outputDir: string): string[] {
  const assets = groupAssets[group];
  if (!assets) return [];
  const target = `${outputDir}/${assets.to}`;
  return [
    `mkdir -p "${target}"`,
    ...assets.files.map((file) => `cp "${inputDir}/${assets.from}/${file}" "${target}/${file}"`),
  ];
}
