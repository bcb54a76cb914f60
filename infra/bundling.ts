/**
 * How each endpoint group is bundled: one esbuild configuration for `npm run build`, `npm run size`, the bundle
 * tests and the CDK functions (local bundling, no Docker). ESM (esbuild splits code only for ESM), minified, tree-shaken, with
 * source maps; the AWS SDK v3 is bundled (pinned versions, tree-shaken) rather than taken from the runtime.
 *
 * Lean bundles: code split, so what a group loads only on some requests (the password estimator's dictionaries,
 * the data tables' record validator and RE2, the meta group's whole route table) sits in chunks beside `index.mjs`
 * that load on first use, not at cold start; and the SDK's default credential chain is replaced by the execution
 * role's credentials from the environment (shared/adapters/aws/lambda-credentials.ts).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DockerImage } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, type BuildResult, buildSync } from 'esbuild';
import { buildConsole } from '../console/build';
import { pageAssetDirectory, pageAssets } from '../functions/pages/assets';
import { consoleAssetDirectory } from '../functions/pages/console';
import { explorerAssetDirectory, explorerAssets } from '../shared/meta/explorer';
import { pruneUnreachable } from './bundle-graph';

/** The project's root: the bundles build from it whatever the current directory (the CDK runs from anywhere). */
const projectRoot = resolve(import.meta.dirname, '..');

/**
 * The Lambda runtime of every function, and the bundles' target with it: the newest Node.js runtime the installed
 * aws-cdk-lib offers (nodejs22.x is deprecated in 2027). CI loads every bundle on that Node.js (.ci/run,
 * LAMBDA_NODE_VERSION).
 */
export const lambdaRuntime = Runtime.NODEJS_24_X;
export const nodeTarget = 'node24';

export const esmBanner =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** Packages only the local runtime uses; never part of a Lambda bundle. */
export const localOnly = ['@electric-sql/pglite', '@electric-sql/pglite-socket', '@dynoxide/linux-x64'];

/** The module each Lambda loads (its `index.mjs`); the handler is its export `handler`. */
export function handlerEntry(group: string): string {
  return `functions/${group}/handler.ts`;
}

/** The esbuild options of a group's bundle, written to `outdir` (`index.mjs`, its source map and its chunks). */
export function bundleOptions(group: string, outdir: string, root = projectRoot): BuildOptions {
  return {
    absWorkingDir: resolve(root),
    entryPoints: { index: handlerEntry(group) },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: nodeTarget,
    minify: true,
    sourcemap: true,
    mainFields: ['module', 'main'],
    banner: { js: esmBanner },
    external: localOnly,
    alias: { '@aws-sdk/credential-provider-node': './shared/adapters/aws/lambda-credentials.ts' },
    metafile: true,
    logLevel: 'warning',
  };
}

/** Bundles a group into `outdir` with the files it reads at run time beside it. */
export function bundleGroup(group: string, outdir: string, root = projectRoot): BuildResult {
  const result = buildSync(bundleOptions(group, resolve(root, outdir), root));
  if (result.metafile) pruneUnreachable(result.metafile, resolve(root));
  copyGroupAssets(group, resolve(root, outdir), root);
  return result;
}

/**
 * The code of a group's Lambda for the CDK: bundled on this machine by `bundleGroup` (the same bundle as
 * `npm run build`). The Docker image is never pulled: local bundling always succeeds or throws.
 */
export function groupCode(group: string, root = projectRoot): Code {
  return Code.fromAsset(resolve(root, 'functions', group), {
    bundling: {
      image: DockerImage.fromRegistry('local-bundling-only'),
      local: {
        tryBundle(outputDir) {
          bundleGroup(group, outputDir, root);
          return true;
        },
      },
    },
  });
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
  pages: { from: 'pages/assets', to: pageAssetDirectory, files: Object.keys(pageAssets) },
};

/**
 * Files a group serves that are built rather than copied, built beside its bundle from their sources so they are
 * never stale: the pages group serves the console.
 */
export const groupBuilds: Readonly<Record<string, (outdir: string) => void>> = {
  pages: (outdir) => {
    buildConsole(join(outdir, consoleAssetDirectory));
  },
};

/** Copies a group's run-time files beside its bundle, and builds the ones it builds. */
export function copyGroupAssets(group: string, outdir: string, root = '.'): void {
  const assets = groupAssets[group];
  if (assets) {
    mkdirSync(join(outdir, assets.to), { recursive: true });
    for (const file of assets.files)
      copyFileSync(join(root, assets.from, file), join(outdir, assets.to, file));
  }
  groupBuilds[group]?.(outdir);
}
