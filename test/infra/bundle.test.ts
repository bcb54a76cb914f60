import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { copyGroupAssets, esmBanner, handlerEntry, localOnly, nodeTarget } from '../../infra/bundling';
import { explorerAssets } from '../../shared/meta/explorer';

const saved = { ...process.env };
afterAll(() => {
  process.env = saved;
});

async function bundle(group: string): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'bundle-'));
  const outfile = join(outdir, 'index.mjs');
  await build({
    entryPoints: [handlerEntry(group)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: nodeTarget,
    minify: true,
    mainFields: ['module', 'main'],
    banner: { js: esmBanner },
    external: localOnly,
    logLevel: 'silent',
  });
  copyGroupAssets(group, outdir);
  return outfile;
}

function get(path: string) {
  return {
    version: '2.0',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    requestContext: { requestId: 'r', http: { method: 'GET', path } },
  };
}

describe('Lambda bundle', () => {
  it('ships the explorer files beside the meta bundle and serves them from there', async () => {
    const outfile = await bundle('meta');
    expect(readdirSync(join(dirname(outfile), 'swagger-ui')).sort()).toEqual(
      Object.keys(explorerAssets).sort(),
    );
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'meta',
      TABLE_NAME: 'platform',
      JWT_SIGNING_KEY_ID: 'alias/none',
      AWS_REGION: 'eu-west-1',
      LOG_LEVEL: 'silent',
    });
    // The copy beside the bundle is what gets served: mark it to tell it from node_modules.
    const css = join(dirname(outfile), 'swagger-ui', 'swagger-ui.css');
    writeFileSync(css, `/* beside the bundle */\n${readFileSync(css, 'utf8')}`);
    const { handler } = await import(pathToFileURL(outfile).href);
    const style = await handler(get('/ninja-docs/swagger-ui.css'), { awsRequestId: 'r' });
    expect(style.statusCode).toBe(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(style.body.startsWith('/* beside the bundle */')).toBe(true);
    const icon = await handler(get('/ninja-docs/favicon-16x16.png'), { awsRequestId: 'r' });
    expect(icon.isBase64Encoded).toBe(true);
    const document = await handler(get('/ninja-openapi.json'), { awsRequestId: 'r' });
    expect(document.statusCode).toBe(200);
    expect(JSON.parse(document.body).openapi).toBe('3.1.0');
  });

  it('loads as an ES module and answers through API Gateway events', async () => {
    const outfile = await bundle('auth');
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'auth',
      TABLE_NAME: 'platform',
      JWT_SIGNING_KEY_ID: 'alias/none',
      AWS_REGION: 'eu-west-1',
      LOG_LEVEL: 'silent',
    });
    const { handler } = await import(pathToFileURL(outfile).href);
    const response = await handler(get('/api/unknown'), { awsRequestId: 'r' });
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ detail: 'Not found.' });
    // The body is checked by the validator generated at build time: the bundle has no schema compiler.
    const login = await handler(
      {
        ...get('/api/auth/jwt/token/'),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'someone' }),
        requestContext: { requestId: 'r', http: { method: 'POST', path: '/api/auth/jwt/token/' } },
      },
      { awsRequestId: 'r' },
    );
    expect(login.statusCode).toBe(400);
    expect(login.body).toContain('password');
    expect(readFileSync(outfile, 'utf8')).not.toContain('strictSchema');
  });
});
