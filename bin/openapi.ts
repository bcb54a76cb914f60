import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { groups, routes } from '../functions/groups';
import { openApiDocument } from '../shared/http/openapi';
import { withPermissionTable } from '../shared/http/permission-table';

/** `npm run openapi`: writes docs/openapi.json and the permission table of docs/authorization.md from the route table. */
mkdirSync('docs', { recursive: true });
writeFileSync('docs/openapi.json', `${JSON.stringify(openApiDocument(Object.values(groups)), null, 2)}\n`);
const authorization = 'docs/authorization.md';
writeFileSync(authorization, withPermissionTable(readFileSync(authorization, 'utf8'), routes));
process.stdout.write(`docs/openapi.json: ${routes.length} operations; ${authorization}: permission table\n`);
