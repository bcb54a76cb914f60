import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dynoxideSettings } from '../../shared/config';
import {
  chooseDynoxideBinary,
  type DynoxideLookup,
  dynoxideBinary,
  findOnPath,
  freePort,
  startEmbeddedDynamoDb,
} from '../../shared/host/local/embedded-dynamodb';

/** A machine with nothing installed: each case adds what it has. */
function machine(overrides: Partial<DynoxideLookup> = {}): DynoxideLookup & { asked: string[] } {
  const asked: string[] = [];
  return {
    platform: 'darwin',
    arch: 'arm64',
    setting: undefined,
    resolvePackage: (name) => {
      asked.push(name);
      return undefined;
    },
    findOnPath: () => undefined,
    asked,
    ...overrides,
  };
}

describe('the choice of the Dynoxide binary', () => {
  it("takes the platform's npm package when it is installed", () => {
    const lookup = machine({
      resolvePackage: (name) =>
        name === '@dynoxide/darwin-arm64' ? '/p/node_modules/@dynoxide/darwin-arm64' : undefined,
      findOnPath: () => '/opt/homebrew/bin/dynoxide',
    });
    expect(chooseDynoxideBinary(lookup)).toEqual({
      found: true,
      binary: '/p/node_modules/@dynoxide/darwin-arm64/dynoxide',
      source: 'package',
    });
  });

  it('names the Windows binary with its .exe', () => {
    const lookup = machine({ platform: 'win32', arch: 'x64', resolvePackage: () => 'C:\\p\\win' });
    const choice = chooseDynoxideBinary(lookup);
    expect(choice.found && choice.binary.endsWith('dynoxide.exe')).toBe(true);
  });

  it('prefers DYNOXIDE_BIN to everything else: it is an explicit choice', () => {
    const lookup = machine({
      setting: '/home/me/bin/dynoxide-1.3',
      resolvePackage: () => '/p/node_modules/@dynoxide/darwin-arm64',
      findOnPath: () => '/opt/homebrew/bin/dynoxide',
    });
    expect(chooseDynoxideBinary(lookup)).toEqual({
      found: true,
      binary: '/home/me/bin/dynoxide-1.3',
      source: 'DYNOXIDE_BIN',
    });
  });

  it('falls back to dynoxide on PATH (Homebrew) when the package is not installed', () => {
    const lookup = machine({
      findOnPath: (name) => (name === 'dynoxide' ? '/opt/homebrew/bin/dynoxide' : undefined),
    });
    expect(chooseDynoxideBinary(lookup)).toEqual({
      found: true,
      binary: '/opt/homebrew/bin/dynoxide',
      source: 'PATH',
    });
    expect(lookup.asked).toEqual(['@dynoxide/darwin-arm64']);
  });

  it('does not look for a package Dynoxide does not publish', () => {
    const lookup = machine({
      platform: 'linux',
      arch: 'riscv64',
      findOnPath: () => '/usr/local/bin/dynoxide',
    });
    expect(chooseDynoxideBinary(lookup)).toMatchObject({ found: true, source: 'PATH' });
    expect(lookup.asked).toEqual([]);
  });

  it('names the three ways to get one, and DYNAMODB_ENDPOINT, when there is none', () => {
    const choice = chooseDynoxideBinary(machine());
    expect(choice.found).toBe(false);
    const message = choice.found ? '' : choice.message;
    for (const part of [
      '@dynoxide/darwin-arm64 is not installed',
      'npm install',
      'brew install nubo-db/tap/dynoxide',
      'on PATH',
      'DYNOXIDE_BIN=',
      'DYNAMODB_ENDPOINT',
    ])
      expect(message).toContain(part);
    const elsewhere = chooseDynoxideBinary(machine({ platform: 'freebsd', arch: 'x64' }));
    expect(elsewhere.found ? '' : elsewhere.message).toContain(
      'Dynoxide publishes no npm package for freebsd-x64',
    );
  });
});

describe('finding dynoxide on PATH', () => {
  it('takes the first executable file of that name, skipping directories and files that cannot run', () => {
    const root = mkdtempSync(join(tmpdir(), 'path-'));
    const [dirA, fileB, runC, runD] = ['a', 'b', 'c', 'd'].map((name) => join(root, name)) as [
      string,
      string,
      string,
      string,
    ];
    mkdirSync(join(dirA, 'dynoxide'), { recursive: true });
    for (const dir of [fileB, runC, runD]) mkdirSync(dir);
    writeFileSync(join(fileB, 'dynoxide'), 'not executable');
    chmodSync(join(fileB, 'dynoxide'), 0o644);
    for (const dir of [runC, runD]) {
      writeFileSync(join(dir, 'dynoxide'), '#!/bin/sh\n');
      chmodSync(join(dir, 'dynoxide'), 0o755);
    }
    const searchPath = ['', join(root, 'missing'), dirA, fileB, runC, runD].join(delimiter);
    // CI runs as root, which may read any file but runs only those with an execute bit: the test holds there too.
    expect(findOnPath('dynoxide', searchPath)).toBe(join(runC, 'dynoxide'));
    expect(findOnPath('dynoxide', join(root, 'missing'))).toBeUndefined();
  });
});

describe('starting Dynoxide from DYNOXIDE_BIN', () => {
  it('reads DYNOXIDE_BIN and PATH through the configuration', () => {
    expect(dynoxideSettings({ DYNOXIDE_BIN: '/x/dynoxide', PATH: '/a:/b' })).toEqual({
      bin: '/x/dynoxide',
      searchPath: '/a:/b',
    });
    expect(dynoxideSettings({}).bin).toBeUndefined();
  });

  it('says when DYNOXIDE_BIN names nothing', () => {
    expect(() => dynoxideBinary({ bin: '/nowhere/dynoxide', searchPath: '' })).toThrow(
      'DYNOXIDE_BIN names /nowhere/dynoxide, which does not exist',
    );
  });

  it('starts the binary it names, ready as soon as it says it listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dynoxide-'));
    const fake = join(dir, 'dynoxide');
    // Stands in for Dynoxide: prints what it was asked, says it listens, then waits to be stopped.
    writeFileSync(fake, `#!/bin/sh\necho "$@" > "${dir}/args"\necho "listening on $5"\nexec sleep 300\n`);
    chmodSync(fake, 0o755);
    const port = await freePort();
    const service = await startEmbeddedDynamoDb({ port, settings: { bin: fake, searchPath: '' } });
    expect(service.url).toBe(`http://127.0.0.1:${port}`);
    expect(readFileSync(join(dir, 'args'), 'utf8')).toBe(`serve --host 127.0.0.1 --port ${port}\n`);
    await service.stop();
  });

  it('reports a binary that exits instead of listening, with what it printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dynoxide-'));
    const fake = join(dir, 'dynoxide');
    writeFileSync(fake, '#!/bin/sh\necho "unknown subcommand serve" >&2\nexit 2\n');
    chmodSync(fake, 0o755);
    await expect(startEmbeddedDynamoDb({ settings: { bin: fake, searchPath: '' } })).rejects.toThrow(
      'Embedded DynamoDB exited with code 2: unknown subcommand serve',
    );
  });
});
