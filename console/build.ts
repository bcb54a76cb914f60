import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * Builds the console (docs/console.md): console/src/main.tsx bundled with React, refine and the typed client into
 * one minified script and one style sheet with content-hashed names, and manifest.json naming them (what the
 * server reads). `npm run console` writes console/dist; the pages group's Lambda bundle builds it beside itself.
 */
const root = resolve(import.meta.dirname, '..');

export interface BuiltConsole {
  js: string;
  css: string;
  /** Bytes of each file, for the size budget. */
  sizes: Record<string, number>;
}

export function buildConsole(outdir = join(root, 'console', 'dist')): BuiltConsole {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = buildSync({
    absWorkingDir: root,
    entryPoints: { console: 'console/src/main.tsx' },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    jsx: 'automatic',
    entryNames: '[name]-[hash]',
    outdir,
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile?.outputs ?? {});
  const find = (ext: string) => {
    const found = outputs.find(([path]) => path.endsWith(ext));
    if (!found) throw new Error(`the console build wrote no ${ext} file`);
    return basename(found[0]);
  };
  const built = { js: find('.js'), css: find('.css') };
  writeFileSync(join(outdir, 'manifest.json'), `${JSON.stringify(built)}\n`);
  const sizes = Object.fromEntries(outputs.map(([path, output]) => [basename(path), output.bytes]));
  return { ...built, sizes };
}

/**
 * Builds the console into `dist` for `npm start`'s first start (bin/local.ts): aside (`dist.<pid>`), then renamed
 * into place, so two first starts at once never serve or remove a half-written build. A build that fails leaves
 * nothing behind, and one that loses the race to another start's removes its own copy.
 */
export function buildConsoleOnce(dist: string, build: (outdir: string) => unknown = buildConsole): void {
  const aside = `${dist}.${process.pid}`;
  try {
    build(aside);
  } catch (error) {
    rmSync(aside, { recursive: true, force: true });
    throw error;
  }
  try {
    renameSync(aside, dist);
  } catch {
    // Another start put its build in place first: the same sources, the same files.
    rmSync(aside, { recursive: true, force: true });
  }
}
