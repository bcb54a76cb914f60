/**
 * How each endpoint group is bundled: the same esbuild options for `npm run build` and for the CDK functions.
 * ESM (middy is ESM-only), minified, tree-shaken, with source maps; the AWS SDK v3 is bundled (pinned versions,
 * tree-shaken) rather than taken from the runtime.
 */
export const nodeTarget = 'node22';

export const esmBanner =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** Packages only the local runtime uses; never part of a Lambda bundle. */
export const localOnly = ['@electric-sql/pglite', '@electric-sql/pglite-socket', '@dynoxide/linux-x64'];

export function handlerEntry(group: string): string {
  return `functions/${group}/handler.ts`;
}
