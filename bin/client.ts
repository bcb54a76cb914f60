import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '../client/src/index';
import { clientFiles } from './client-files';
import { type ListedTable, listedTables, tableTypes } from './client-types';

/**
 * `npm run client`: regenerates the typed client's generated files from the route table (bin/client-files.ts).
 * `npm run client -- types --app <slug>`: writes the TypeScript types of an app's tables (bin/client-types.ts),
 * read from a running server (`--url`, `--site`; signed in as `--user` with the password in `TENANTBASE_PASSWORD`,
 * or with the access token in `TENANTBASE_TOKEN`) or from the table list saved from it (`--from <file.json>`, the
 * answer of `GET /api/apps/<slug>/datatables/`); to `--out <file>` or standard output.
 */
const [command, ...rest] = process.argv.slice(2);

if (command === undefined) {
  for (const [path, text] of Object.entries(await clientFiles())) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    process.stdout.write(`${path}: ${text.length} characters\n`);
  }
} else if (command === 'types') {
  const { values } = parseArgs({
    args: rest,
    options: {
      app: { type: 'string' },
      from: { type: 'string' },
      url: { type: 'string', default: 'http://localhost:3000' },
      site: { type: 'string' },
      user: { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (!values.app) throw new Error('types: --app <slug> names the app whose tables are typed.');
  const text = tableTypes(values.app, await tablesOf(values.app, values));
  if (values.out) {
    mkdirSync(dirname(values.out), { recursive: true });
    writeFileSync(values.out, text);
    process.stdout.write(`${values.out}: the types of ${values.app}'s tables\n`);
  } else process.stdout.write(text);
} else
  throw new Error(
    `client: no command "${command}" (none: regenerate the client's files; "types --app <slug>").`,
  );

async function tablesOf(
  app: string,
  options: { from?: string; url: string; site?: string; user?: string },
): Promise<ListedTable[]> {
  if (options.from) {
    return listedTables(JSON.parse(readFileSync(options.from, 'utf8')));
  }
  const token = process.env.TENANTBASE_TOKEN;
  const api = createClient({
    baseUrl: options.url,
    ...(options.site ? { site: options.site } : {}),
    auth: { type: 'bearer', ...(token ? { access: token } : {}) },
  });
  if (!token && options.user) await api.signIn(options.user, process.env.TENANTBASE_PASSWORD ?? '');
  const { data } = await api.GET('/api/apps/{app_slug}/datatables/', { params: { path: { app_slug: app } } });
  return listedTables(data);
}
