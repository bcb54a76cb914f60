import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The client as someone outside the checkout gets it (docs/client.md, "Installing"): `npm pack` in client/ (its
 * prepack builds dist/), the tarball installed into a fresh project with nothing else (offline: from the npm
 * cache, which holds openapi-fetch since the checkout depends on it), then used there by a CommonJS consumer (the
 * default of `npm init`), by an ES module consumer, and type-checked with `moduleResolution` `nodenext` (in both
 * module formats) and `bundler`, with typescript from the checkout's node_modules. The types an app's tables get
 * from `npm run client -- types` are part of what is type-checked: a wrong field fails.
 */
const repo = resolve('.');
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
let project: string;
const run = (command: string, args: string[], cwd = project) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', timeout: 240_000, stdio: ['ignore', 'pipe', 'pipe'] });

/** A consumer's code: a typed call against a fake API, a table typed by the generated types, a filter. */
const use = (load: string) => `${load}
const answers = { '/api/cloud/users/me/': { id: 1, username: 'ada' }, '/api/apps/shop/datatables/books/data/': { data: [{ id: 'b1', title: 'Dune', pages: 412, genre: 'sf' }], total: 1 } };
const fetch = async (request) => {
  const path = new URL(request.url).pathname;
  return new Response(JSON.stringify(answers[path]), { status: 200, headers: { 'content-type': 'application/json' } });
};
async function main() {
  const api = createClient({ baseUrl: 'http://api.test', site: 'shop', fetch, auth: { type: 'bearer', access: 'a' } });
  const { data: me } = await api.GET('/api/cloud/users/me/');
  const books = await api.app('shop').table('books').list({ filter: filter().where('pages', 'gte', 300) });
  console.log(JSON.stringify([me.username, books.total, books.data[0].title, typeof dataProvider]));
}
main();
`;

const typed = `import { createClient, filter } from '@tenantbase/client';
import type { Tables } from './shop-tables.js';

export async function use(): Promise<string> {
  const api = createClient({ baseUrl: 'http://api.test', site: 'shop' });
  const { data: me } = await api.GET('/api/cloud/users/me/');
  const books = api.app<Tables>('shop').table('books');
  const page = await books.list({ filter: filter<Tables['books']>().where('pages', 'gte', 300), sort: ['-pages'] });
  const title: string = page.data[0]?.title ?? '';
  const pages: number | null = page.data[0]?.pages ?? null;
  // @ts-expect-error a path the API does not have
  await api.GET('/api/no-such-path/');
  // @ts-expect-error the generated type knows the field's type: a title is no number
  const wrong: number = page.data[0]?.title ?? 0;
  // @ts-expect-error an enum field takes only its values
  await books.create({ id: 'x', title: 'T', pages: 1, genre: 'poetry' });
  return [me?.username, title, pages, wrong].join();
}
`;

const tables = {
  data: [
    {
      name: 'books',
      schema: {
        fields: [
          { name: 'id', type: 'string', format: 'uuid' },
          { name: 'title', type: 'string', constraints: { required: true } },
          { name: 'pages', type: 'integer' },
          { name: 'genre', type: 'string', constraints: { enum: ['sf', 'fantasy'] } },
        ],
        primaryKey: ['id'],
      },
    },
  ],
};

/**
 * The fresh project's lockfile: the tarball, and the client's dependencies as the checkout's lockfile pins them
 * (name, version, integrity), so that `npm ci --offline` finds every one in the npm cache by its integrity.
 */
function lockfile(tarball: string, file: string): object {
  const repoLock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string; integrity?: string; dependencies?: Record<string, string> }>;
  };
  const client = JSON.parse(readFileSync(join(repo, 'client', 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
  };
  const packages: Record<string, object> = {
    '': { name: 'consumer', version: '1.0.0', dependencies: { '@tenantbase/client': `file:${file}` } },
    'node_modules/@tenantbase/client': {
      version: client.version,
      resolved: `file:${file}`,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      dependencies: client.dependencies,
    },
  };
  const pending = Object.keys(client.dependencies);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    const entry = repoLock.packages[`node_modules/${name}`];
    if (!entry) throw new Error(`${name}: not in the checkout's package-lock.json`);
    if (packages[`node_modules/${name}`]) continue;
    packages[`node_modules/${name}`] = {
      version: entry.version,
      integrity: entry.integrity,
      dependencies: entry.dependencies,
    };
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

function tsconfig(name: string, module: string, resolution: string, files: string[]) {
  const options = {
    strict: true,
    noEmit: true,
    module,
    moduleResolution: resolution,
    target: 'es2022',
    lib: ['es2023', 'dom'],
    types: [],
  };
  writeFileSync(join(project, name), JSON.stringify({ compilerOptions: options, files }));
}

describe('typed client: installed from its tarball into a fresh project', () => {
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'tenantbase-client-'));
    const packed = join(project, 'packed');
    mkdirSync(packed);
    run('npm', ['pack', '--pack-destination', packed, '--silent'], join(repo, 'client'));
    const tarball = readdirSync(packed).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    // `npm init -y`'s package.json: CommonJS, no "type".
    const file = `packed/${tarball}`;
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'consumer',
        version: '1.0.0',
        dependencies: { '@tenantbase/client': `file:${file}` },
      }),
    );
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockfile(join(project, file), file)));
    run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts']);
  }, 600_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('runs in a default CommonJS project (require)', () => {
    writeFileSync(
      join(project, 'index.js'),
      use(
        "const { createClient, filter } = require('@tenantbase/client');\nconst { dataProvider } = require('@tenantbase/client/refine');",
      ),
    );
    expect(JSON.parse(run(process.execPath, ['index.js']))).toEqual(['ada', 1, 'Dune', 'function']);
  });

  it('runs as an ES module (import)', () => {
    writeFileSync(
      join(project, 'index.mjs'),
      use(
        "import { createClient, filter } from '@tenantbase/client';\nimport { dataProvider } from '@tenantbase/client/refine';",
      ),
    );
    expect(JSON.parse(run(process.execPath, ['index.mjs']))).toEqual(['ada', 1, 'Dune', 'function']);
  });

  it('type-checks with moduleResolution nodenext (CommonJS and ES module files) and bundler, with the generated table types', () => {
    writeFileSync(join(project, 'tables.json'), JSON.stringify(tables));
    run(process.execPath, [
      join(repo, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
      join(repo, 'bin', 'client.ts'),
      'types',
      '--app',
      'shop',
      '--from',
      'tables.json',
      '--out',
      'shop-tables.ts',
    ]);
    writeFileSync(join(project, 'typed.ts'), typed);
    writeFileSync(join(project, 'typed.mts'), typed.replace("'./shop-tables.js'", "'./shop-tables.js'"));
    tsconfig('tsconfig.nodenext.json', 'nodenext', 'nodenext', ['typed.ts', 'typed.mts', 'shop-tables.ts']);
    tsconfig('tsconfig.bundler.json', 'esnext', 'bundler', ['typed.ts', 'shop-tables.ts']);
    for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
      let output = '';
      try {
        run(process.execPath, [tsc, '-p', config]);
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output, config).toBe('');
    }
  });

  it('fails to type-check a consumer that misuses the types (the check above can fail)', () => {
    writeFileSync(
      join(project, 'wrong.ts'),
      "import { createClient } from '@tenantbase/client';\ncreateClient({ baseUrl: 1 });\n",
    );
    tsconfig('tsconfig.wrong.json', 'nodenext', 'nodenext', ['wrong.ts']);
    let output = '';
    try {
      run(process.execPath, [tsc, '-p', 'tsconfig.wrong.json']);
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toMatch(
      /wrong\.ts\(2,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
    );
  });
});
