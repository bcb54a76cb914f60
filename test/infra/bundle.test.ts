import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esmBanner, handlerEntry, localOnly, nodeTarget } from '../../infra/bundling';

const saved = { ...process.env };
afterAll(() => {
  process.env = saved;
});

describe('Lambda bundle', () => {
  it('loads as an ES module and answers through API Gateway events', async () => {
    const outfile = join(mkdtempSync(join(tmpdir(), 'bundle-')), 'index.mjs');
    await build({
      entryPoints: [handlerEntry('auth')],
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
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'auth',
      TABLE_NAME: 'platform',
      JWT_SIGNING_KEY_ID: 'alias/none',
      AWS_REGION: 'eu-west-1',
      LOG_LEVEL: 'silent',
    });
    const { handler } = await import(pathToFileURL(outfile).href);
    const response = await handler(
      {
        version: '2.0',
        rawPath: '/api/unknown',
        rawQueryString: '',
        headers: {},
        requestContext: { requestId: 'r', http: { method: 'GET', path: '/api/unknown' } },
      },
      { awsRequestId: 'r' },
    );
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ detail: 'Not found.' });
  });
});
