import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '../errors';

/**
 * The API explorer: Swagger UI from the npm package `swagger-ui-dist`, served by the platform itself (no CDN), so
 * it works offline and behind any firewall. Only the files listed here are ever read.
 */
export const explorerAssets: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Where a Lambda bundle keeps the explorer's files: beside the bundle (see infra/bundling.ts). */
export const explorerAssetDirectory = 'swagger-ui';

/** The package's files: beside a Lambda bundle, else in node_modules (local runs, tests). */
function assetRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, explorerAssetDirectory);
  if (existsSync(beside)) return beside;
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

let root: string | undefined;
/** Bound: the whitelisted files (`explorerAssets`), read once each; any other name is a 404 before the cache. */
const cache = new Map<string, Buffer | string>();

/** How many explorer files are held in memory. */
export function cachedExplorerAssets(): number {
  return cache.size;
}

/** One whitelisted file of the explorer with its content type; 404 for any other name. */
export function explorerAsset(name: string): { contentType: string; body: Buffer | string } {
  const contentType = explorerAssets[name];
  if (!contentType || !Object.hasOwn(explorerAssets, name))
    throw new NotFoundError({ message: 'Not found.' });
  let body = cache.get(name);
  if (body === undefined) {
    root ??= assetRoot();
    const bytes = readFileSync(join(root, name));
    body = contentType.startsWith('text/') ? bytes.toString('utf8') : bytes;
    cache.set(name, body);
  }
  return { contentType, body };
}

/** The explorer's page, pointed at the served OpenAPI document. */
export function explorerPage(documentPath: string, assetsPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Tenantbase API</title>
  <link rel="stylesheet" href="${assetsPath}swagger-ui.css">
  <link rel="icon" type="image/png" href="${assetsPath}favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${assetsPath}favicon-16x16.png" sizes="16x16">
</head>
<body>
  <nav style="font-family: sans-serif; padding: 0.5rem 1rem"><a href="/sign-in">Sign in</a> (the hosted sign-in page)</nav>
  <div id="swagger-ui"></div>
  <script src="${assetsPath}swagger-ui-bundle.js"></script>
  <script src="${assetsPath}swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: ${JSON.stringify(documentPath)},
      dom_id: '#swagger-ui',
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
    });
  </script>
</body>
</html>
`;
}
