import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpResult } from '../../shared/api/result';
import { NotFoundError } from '../../shared/errors';
import { esc, pageHeaders, productName } from './html';

/**
 * The console (console/, docs/console.md): one HTML page and its built assets (`npm run console` writes them into
 * console/dist with content-hashed names and a manifest.json naming them). The HTML is the hosted pages' strict
 * policy (no inline script or style) and is never cached; the hashed assets are cached for a year.
 */

/** Where a Lambda bundle keeps the built console: beside the bundle (infra/bundling.ts copies it). */
export const consoleAssetDirectory = 'console-assets';

export interface ConsoleManifest {
  js: string;
  css: string;
}

const contentTypes: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** A hashed asset name as `npm run console` writes it; anything else is never read from disk. */
const assetName = /^console-[A-Z0-9]{8,16}\.(js|css)$/;

let chosenRoot: string | undefined;

function consoleRoot(): string {
  if (chosenRoot) return chosenRoot;
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, consoleAssetDirectory);
  return existsSync(beside) ? beside : join(here, '..', '..', 'console', 'dist');
}

let manifest: ConsoleManifest | undefined;
const cache = new Map<string, string>();

/** The built console's manifest (its hashed asset names); a 404 when the console is not built. */
export function loadManifest(): ConsoleManifest {
  if (manifest) return manifest;
  const path = join(consoleRoot(), 'manifest.json');
  if (!existsSync(path))
    throw new NotFoundError({ message: 'The console is not built: run `npm run console`.' });
  manifest = JSON.parse(readFileSync(path, 'utf8')) as ConsoleManifest;
  return manifest;
}

/**
 * Serves the console from another build directory (a test builds its own copy, so test files running at the same
 * time never serve a directory another one is rebuilding), and forgets what was read.
 */
export function serveConsoleFrom(directory: string): void {
  chosenRoot = directory;
  manifest = undefined;
  cache.clear();
}

export function consoleHtml(built: ConsoleManifest): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console · ${esc(productName)}</title>
<link rel="stylesheet" href="/console/assets/${esc(built.css)}">
<script type="module" src="/console/assets/${esc(built.js)}"></script>
</head>
<body>
<div id="root"><main class="boot"><h1>${esc(productName)}</h1><p>Loading…</p></main></div>
<noscript><p>The console needs JavaScript.</p></noscript>
</body>
</html>
`;
}

export function consolePage(): HttpResult {
  return {
    status: 200,
    raw: { contentType: 'text/html; charset=utf-8', body: consoleHtml(loadManifest()) },
    headers: { ...pageHeaders },
  };
}

/** One of the built, hashed assets named by the manifest; 404 for any other name. */
export function consoleAsset(name: string): HttpResult {
  const built = loadManifest();
  const match = assetName.exec(name);
  if (!match || (name !== built.js && name !== built.css)) throw new NotFoundError({ message: 'Not found.' });
  let body = cache.get(name);
  if (body === undefined) {
    body = readFileSync(join(consoleRoot(), name), 'utf8');
    cache.set(name, body);
  }
  return {
    status: 200,
    raw: { contentType: contentTypes[match[1] as string] as string, body },
    headers: {
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    },
  };
}
