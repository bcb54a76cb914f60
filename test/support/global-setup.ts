import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDynamoDb } from '../../shared/host/local/embedded-dynamodb';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    /** A real PostgreSQL (DATABASE_URL); when absent each test file runs on its own PGlite. */
    databaseUrl: string | undefined;
    /**
     * DATABASE_URL names a transaction-pooling proxy (DATABASE_PROXY=true, CI's PgBouncer pass): every platform a
     * test starts then runs with DATABASE_PROXY=true, and the tests' own clients use no named prepared statements.
     */
    databaseProxy: boolean;
    /** A freshly initialised PGlite data directory, dumped once, loaded by each test file (initdb is slow). */
    pgliteTemplate: string | undefined;
  }
}

/** Starts what every test file shares: one embedded DynamoDB (each file gets its own table). */
export default async function setup(project: TestProject) {
  const dynamo = await startEmbeddedDynamoDb();
  project.provide('dynamodbEndpoint', dynamo.url);
  const databaseUrl = process.env.DATABASE_URL || undefined;
  project.provide('databaseUrl', databaseUrl);
  project.provide('databaseProxy', Boolean(databaseUrl) && process.env.DATABASE_PROXY === 'true');
  let template: string | undefined;
  let templateDir: string | undefined;
  if (!databaseUrl) {
    const db = await PGlite.create();
    const dump = await db.dumpDataDir('none');
    await db.close();
    // A directory of this run's own: another run in the same checkout (CI beside an `npm test`) writes its own.
    const parent = join(process.cwd(), '.test-data');
    mkdirSync(parent, { recursive: true });
    templateDir = mkdtempSync(join(parent, 'run-'));
    template = join(templateDir, 'pglite-template.tar');
    writeFileSync(template, Buffer.from(await dump.arrayBuffer()));
  }
  project.provide('pgliteTemplate', template);
  return async () => {
    await dynamo.stop();
    if (templateDir) rmSync(templateDir, { recursive: true, force: true });
  };
}
