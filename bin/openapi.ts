import { mkdirSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../shared/http/openapi';
import { routes } from '../shared/http/routes';

/** `npm run openapi`: writes docs/openapi.json from the route table. */
mkdirSync('docs', { recursive: true });
writeFileSync('docs/openapi.json', `${JSON.stringify(openApiDocument(routes), null, 2)}\n`);
process.stdout.write(`docs/openapi.json: ${routes.length} operations\n`);
