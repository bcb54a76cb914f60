import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFiles } from '../../infra/bundle-graph';
import { bundleGroup } from '../../infra/bundling';
import { explorerAssets } from '../../shared/meta/explorer';

const saved = { ...process.env };
afterAll(() => {
  process.env = saved;
  for (const { outfile } of builds.values()) rmSync(dirname(outfile), { recursive: true, force: true });
});

/** The group's bundle as a Lambda gets it (infra/bundling.ts), in a fresh directory. */
function bundle(group: string): string {
  return built(group).outfile;
}

/** Each group is bundled once for this file (several tests read the same group's bundle). */
const builds = new Map<string, { outfile: string; metafile: Metafile }>();

function built(group: string): { outfile: string; metafile: Metafile } {
  const known = builds.get(group);
  if (known) return known;
  const outdir = mkdtempSync(join(tmpdir(), 'bundle-'));
  const { metafile } = bundleGroup(group, outdir);
  if (!metafile) throw new Error('no metafile');
  const build = { outfile: join(outdir, 'index.mjs'), metafile };
  builds.set(group, build);
  return build;
}

/** The source files whose code a group's cold start loads, and those it loads only on first use. */
function sourcesOf(group: string): { cold: string[]; lazy: string[] } {
  const { metafile } = built(group);
  const files = bundleFiles(metafile);
  const inputs = (outputs: readonly string[]) =>
    outputs.flatMap((output) => Object.keys(metafile.outputs[output]?.inputs ?? {}));
  return { cold: inputs(files.cold), lazy: inputs(files.lazy) };
}

const has = (files: readonly string[], part: string) => files.some((file) => file.includes(part));

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
    const outfile = bundle('meta');
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
    const outfile = bundle('auth');
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

  it.each(['auth', 'accounts', 'roles'])(
    'leaves out of the %s bundle the SQL driver, the schema compiler and the SDK credential chain',
    (group) => {
      const { cold, lazy } = sourcesOf(group);
      const all = [...cold, ...lazy];
      // The accounts group serves deletions, but their SQL steps are the deletion sweeper's (docs/lifecycle.md):
      // no group here has the data plane.
      for (const absent of [
        'node_modules/postgres/',
        '@aws-sdk/client-secrets-manager',
        'ajv/dist/compile/',
        '@aws-sdk/credential-provider-node',
        '@aws-sdk/nested-clients',
        're2js',
      ])
        expect(has(all, absent), absent).toBe(false);
      if (group === 'accounts') expect(has(cold, '@aws-sdk/client-secrets-manager')).toBe(false);
      expect(has(cold, 'shared/adapters/aws/lambda-credentials.ts')).toBe(true);
      // The index of the route validators loads at cold start; each route's module on its first request.
      expect(has(cold, `functions/${group}/validators/index.generated.ts`)).toBe(true);
      const routeModules = (files: readonly string[]) =>
        files.filter(
          (file) => file.includes(`functions/${group}/validators/`) && !file.endsWith('index.generated.ts'),
        );
      expect(routeModules(cold)).toEqual([]);
      expect(routeModules(lazy).length).toBeGreaterThan(1);
      // Only the group's own route declarations: not the other groups'.
      for (const other of ['auth', 'accounts', 'roles', 'data', 'meta'].filter((name) => name !== group))
        expect(has(all, `shared/${other}/routes.ts`), other).toBe(false);
    },
  );

  it("loads the data group's schema management, edges, graph reads and AWS clients only on first use", () => {
    const data = sourcesOf('data');
    for (const lazy of [
      'functions/data/table-operations.ts',
      'shared/data/tables/management.ts',
      'shared/data/graph/edges.ts',
      'shared/data/graph/reads.ts',
      '@aws-sdk/client-kms',
      '@aws-sdk/client-secrets-manager',
      'shared/adapters/aws/cloud-event-runner.ts',
      'node_modules/re2js/',
    ]) {
      expect(has(data.cold, lazy), lazy).toBe(false);
      expect(has(data.lazy, lazy), lazy).toBe(true);
    }
    expect(has(data.cold, 'node_modules/postgres/')).toBe(true);
    // Records are checked by checks compiled from the table schema, not by a schema compiler.
    expect(has([...data.cold, ...data.lazy], 'ajv/dist/compile/')).toBe(false);
  });

  it("loads the secret store's schema compiler and RE2 with the first typed value, not at cold start", () => {
    const secrets = sourcesOf('secrets');
    for (const lazy of ['ajv/dist/compile/', 'node_modules/re2js/', '@aws-sdk/client-kms']) {
      expect(has(secrets.cold, lazy), lazy).toBe(false);
      expect(has(secrets.lazy, lazy), lazy).toBe(true);
    }
  });

  it('loads the password dictionaries and the route table only on first use', () => {
    const accounts = sourcesOf('accounts');
    expect(has(accounts.cold, '@zxcvbn-ts/')).toBe(false);
    expect(has(accounts.lazy, '@zxcvbn-ts/language-common')).toBe(true);
    const meta = sourcesOf('meta');
    expect(has(meta.cold, 'shared/data/routes.ts')).toBe(false);
    expect(has(meta.lazy, 'shared/data/routes.ts')).toBe(true);
  });

  it('bundles in the pages group only the API reads the pages run, not the rest of those groups', () => {
    const pages = sourcesOf('pages');
    const all = [...pages.cold, ...pages.lazy];
    for (const read of [
      'functions/invitations/details-operations.ts',
      'functions/auth/social-read-operations.ts',
      'functions/accounts/current-user-operations.ts',
    ])
      expect(has(pages.cold, read), read).toBe(true);
    for (const absent of [
      'functions/invitations/operations.ts',
      'functions/auth/social-operations.ts',
      'functions/accounts/operations.ts',
      'shared/social/login.ts',
      'node_modules/jose/',
      '@zxcvbn-ts/',
    ])
      expect(has(all, absent), absent).toBe(false);
  });
});
