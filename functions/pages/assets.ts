import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '../../shared/errors';

/** The pages' static files: one script and one style sheet. Only these names are ever read. */
export const pageAssets: Readonly<Record<string, string>> = {
  'pages.js': 'text/javascript; charset=utf-8',
  'pages.css': 'text/css; charset=utf-8',
};

/** Where a Lambda bundle keeps them: beside the bundle (infra/bundling.ts copies them). */
export const pageAssetDirectory = 'pages-assets';

function assetRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, pageAssetDirectory);
  return existsSync(beside) ? beside : join(here, '..', '..', 'pages', 'assets');
}

let root: string | undefined;
const cache = new Map<string, string>();

/** One of the pages' files with its content type; 404 for any other name. */
export function pageAsset(name: string): { contentType: string; body: string } {
  if (!Object.hasOwn(pageAssets, name)) throw new NotFoundError({ message: 'Not found.' });
  const contentType = pageAssets[name] as string;
  let body = cache.get(name);
  if (body === undefined) {
    root ??= assetRoot();
    body = readFileSync(join(root, name), 'utf8');
    cache.set(name, body);
  }
  return { contentType, body };
}
