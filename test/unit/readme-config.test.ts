import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dynoxideSettings, loadConfig } from '../../shared/config';

/**
 * README's "Configuration" table lists every variable the configuration module reads, and only those: read off its
 * source (each key it names, in a branch taken or not) and off a run of it (each key it asks an environment for),
 * so that a setting added to shared/config.ts without its row, or a row left after its setting went, fails here.
 */

/** Read by the configuration module but set by the system, not by whoever configures the platform. */
const notSettings: Record<string, string> = {
  PATH: 'where the operating system finds programs (dynoxide)',
  Path: "Windows' spelling of PATH",
  AWS_LAMBDA_FUNCTION_NAME: 'set by the Lambda runtime; it selects the cloud runtime',
};

/** The keys shared/config.ts names: quoted upper-case identifiers and `env.KEY`. */
function keysInSource(): Set<string> {
  const source = readFileSync('shared/config.ts', 'utf8');
  return new Set([
    ...[...source.matchAll(/'([A-Z][A-Z0-9_]{2,})'/g)].map((match) => match[1] as string),
    ...[...source.matchAll(/\benv\.([A-Za-z][A-Za-z0-9_]*)/g)].map((match) => match[1] as string),
  ]);
}

/** The keys a run of the configuration module asks an environment for. */
function keysRead(run: (env: Record<string, string | undefined>) => unknown): Set<string> {
  const keys = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (target, key) => {
      if (typeof key === 'string') keys.add(key);
      return target[key as string];
    },
  });
  run(env);
  return keys;
}

/** The variables of README's configuration table: the backquoted names of each row's first cell. */
function tableVariables(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.split(/^## Configuration\n/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) =>
    [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] as string),
  );
}

describe("README's configuration table", () => {
  it('lists each variable shared/config.ts reads, once, and nothing else', () => {
    const read = new Set([...keysInSource(), ...keysRead(loadConfig), ...keysRead(dynoxideSettings)]);
    const settings = [...read].filter((key) => !(key in notSettings)).sort();
    const listed = tableVariables();
    expect(listed.length).toBeGreaterThan(40);
    expect([...new Set(listed)].sort()).toEqual(settings);
    expect(listed).toHaveLength(new Set(listed).size);
  });
});
