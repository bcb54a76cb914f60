import { describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/log';
import type { Sql } from '../../shared/sql/client';
import { migrations } from '../../shared/sql/migrations';
import {
  appliedSchemaVersion,
  expectedSchemaVersion,
  requireCurrentSchema,
  SchemaBehindError,
} from '../../shared/sql/schema-version';

/**
 * A data-plane client that records every statement and answers the version query from `versions` (one answer per
 * call; a string is a PostgreSQL error code). Anything else it is sent (a transaction, unsafe SQL, the DDL of a
 * migration) is recorded too, so a check that migrated would show here.
 */
function recordingSql(versions: (number | null | string)[]) {
  const statements: string[] = [];
  const tag = (strings: TemplateStringsArray) => {
    statements.push(strings.join('$').replace(/\s+/g, ' ').trim());
    const answer = versions.shift();
    if (typeof answer === 'string') return Promise.reject(Object.assign(new Error('no'), { code: answer }));
    return Promise.resolve([{ version: answer ?? null }]);
  };
  const sql = new Proxy(tag, {
    get: (_, name) => (text: string) => {
      statements.push(`${String(name)}: ${text}`);
      return Promise.resolve([]);
    },
  });
  return { sql: sql as unknown as Sql, statements };
}

function recordingLog() {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
    child: () => log,
  };
  return { log, lines };
}

describe('expectedSchemaVersion', () => {
  it('is the newest migration of the code', () => {
    expect(expectedSchemaVersion).toBe(Math.max(...migrations.map((m) => m.version)));
    expect(migrations.some((m) => m.version === expectedSchemaVersion)).toBe(true);
  });
});

describe('appliedSchemaVersion', () => {
  it('reads the newest applied version with one SELECT', async () => {
    const { sql, statements } = recordingSql([7]);
    expect(await appliedSchemaVersion(sql)).toBe(7);
    expect(statements).toEqual(['SELECT max(version) AS version FROM platform.schema_migrations']);
  });

  it('is 0 for an empty migrations table and for a database the step never reached', async () => {
    expect(await appliedSchemaVersion(recordingSql([null]).sql)).toBe(0);
    expect(await appliedSchemaVersion(recordingSql(['42P01']).sql)).toBe(0);
    expect(await appliedSchemaVersion(recordingSql(['3F000']).sql)).toBe(0);
  });

  it('lets any other failure through', async () => {
    await expect(appliedSchemaVersion(recordingSql(['57P01']).sql)).rejects.toMatchObject({ code: '57P01' });
  });
});

describe('requireCurrentSchema', () => {
  it('checks once per client and issues nothing but that SELECT', async () => {
    const { sql, statements } = recordingSql([expectedSchemaVersion]);
    const { log, lines } = recordingLog();
    await Promise.all([requireCurrentSchema(sql, log), requireCurrentSchema(sql, log)]);
    await requireCurrentSchema(sql, log);
    expect(statements).toEqual(['SELECT max(version) AS version FROM platform.schema_migrations']);
    expect(lines).toEqual([]);
  });

  it('accepts a database ahead of the code (the previous version still running during a deployment)', async () => {
    const { sql } = recordingSql([expectedSchemaVersion + 1]);
    await expect(requireCurrentSchema(sql, recordingLog().log)).resolves.toBeUndefined();
  });

  it('refuses with 503 while behind, logs it, runs no DDL, and checks again on the next request', async () => {
    const { sql, statements } = recordingSql([expectedSchemaVersion - 1, '42P01', expectedSchemaVersion]);
    const { log, lines } = recordingLog();
    const refused = await requireCurrentSchema(sql, log).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaBehindError);
    expect(refused).toMatchObject({ status: 503, code: 'schema_behind' });
    await expect(requireCurrentSchema(sql, log)).rejects.toMatchObject({ applied: 0 });
    await requireCurrentSchema(sql, log);
    await requireCurrentSchema(sql, log);
    expect(statements).toHaveLength(3);
    for (const statement of statements) expect(statement).toMatch(/^SELECT max\(version\)/);
    expect(lines).toEqual([
      {
        message: 'database schema is behind the code: run the migration step',
        fields: { expected_version: expectedSchemaVersion, applied_version: expectedSchemaVersion - 1 },
      },
      {
        message: 'database schema is behind the code: run the migration step',
        fields: { expected_version: expectedSchemaVersion, applied_version: 0 },
      },
    ]);
  });

  it('does not remember a failed connection either', async () => {
    const { sql, statements } = recordingSql(['08006', expectedSchemaVersion]);
    const { log, lines } = recordingLog();
    await expect(requireCurrentSchema(sql, log)).rejects.toMatchObject({ code: '08006' });
    await requireCurrentSchema(sql, log);
    expect(statements).toHaveLength(2);
    expect(lines).toEqual([]);
  });
});
