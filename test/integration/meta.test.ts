import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.stop();
});

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const committed = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));

describe('the served API description', () => {
  it('serves the generated OpenAPI document at /ninja-openapi.json and /openapi.json, without a token', async () => {
    for (const path of ['/ninja-openapi.json', '/openapi.json']) {
      const response = await platform.api.get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.body).toEqual(committed);
    }
  });

  it('serves the explorer page, which loads its assets from the platform itself', async () => {
    for (const path of ['/ninja-docs/', '/ninja-docs']) {
      const page = await platform.api.get(path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('SwaggerUIBundle({');
      expect(page.text).toContain('"/ninja-openapi.json"');
      expect(page.text).not.toMatch(/https?:\/\//);
      // The hosted sign-in page is linked (docs/pages.md); the rest are the explorer's own files.
      expect(page.text).toContain('<a href="/sign-in">');
      const assets = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)]
        .map((match) => match[1] as string)
        .filter((href) => href !== '/sign-in');
      expect(assets).toHaveLength(5);
      for (const asset of assets) {
        const response = await fetch(`${platform.baseUrl}${asset}`);
        expect(response.status, asset).toBe(200);
      }
    }
  });

  it('serves each asset with its content type and the bytes of swagger-ui-dist', async () => {
    const css = await fetch(`${platform.baseUrl}/ninja-docs/swagger-ui.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe(readFileSync('node_modules/swagger-ui-dist/swagger-ui.css', 'utf8'));
    const js = await fetch(`${platform.baseUrl}/ninja-docs/swagger-ui-bundle.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const png = await fetch(`${platform.baseUrl}/ninja-docs/favicon-32x32.png`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer())).toEqual(
      readFileSync('node_modules/swagger-ui-dist/favicon-32x32.png'),
    );
  });

  it('serves no other file of the package, nor anything outside it', async () => {
    for (const name of [
      'index.html',
      'package.json',
      '..%2Fpackage.json',
      '%2E%2E%2F%2E%2E%2Fpackage.json',
    ]) {
      const response = await platform.api.get(`/ninja-docs/${name}`);
      expect(response.status, name).toBe(404);
      expect(response.body).toEqual({ detail: 'Not found.' });
    }
  });
});

describe('GET /health', () => {
  it('answers 200 with the version and each store reachable', async () => {
    const response = await platform.api.get('/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      status: 'ok',
      version: manifest.version,
      checks: { dynamodb: { status: 'ok' }, postgres: { status: 'ok' } },
    });
  });

  it('answers 503 naming the store that cannot be reached', async () => {
    await platform.deps.sql().end({ timeout: 5 });
    const response = await platform.api.get('/health');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      status: 'error',
      version: manifest.version,
      checks: {
        dynamodb: { status: 'ok' },
        postgres: { status: 'error', error: 'postgres is unreachable' },
      },
    });
  });
});
