import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { serverProcess } from '../../bin/server-process';

/**
 * The local server runs with the node flags and the malloc setting of package.json's `config` (docs/benchmarks.md,
 * "Memory"): `npm start` must start the process that runs bin/local.ts with them, and they must take effect there.
 */
const scratch = mkdtempSync(join(tmpdir(), 'server-process-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const probe = pathToFileURL(resolve('test/fixtures/start-probe/probe.mjs')).href;

interface Started {
  nodeOptions: string;
  mallocMmapThreshold: string | undefined;
  heapSizeLimit: number;
}

/** What the process running bin/local.ts under `npm start` was started with (the probe stops it before it serves). */
function startedByNpmStart(): Started {
  const file = join(scratch, 'started.json');
  const { MALLOC_MMAP_THRESHOLD_: _unset, ...env } = process.env;
  const run = spawnSync('npm', ['run', '--silent', 'start'], {
    env: { ...env, NODE_OPTIONS: `--import=${probe}`, START_PROBE_FILE: file },
    encoding: 'utf8',
  });
  expect(run.status, `npm start: ${run.stderr}`).toBe(0);
  return JSON.parse(readFileSync(file, 'utf8')) as Started;
}

describe('the local server process', () => {
  it('is started by npm start with the flags and environment of package.json, in front of NODE_OPTIONS', () => {
    const settings = serverProcess();
    expect(settings.nodeFlags.length).toBeGreaterThan(0);
    const started = startedByNpmStart();
    expect(started.mallocMmapThreshold).toBe(settings.env.MALLOC_MMAP_THRESHOLD_);
    // The configured flags first, then what the person starting it set (which therefore wins).
    expect(started.nodeOptions.split(' ').filter(Boolean)).toEqual([
      ...settings.nodeFlags,
      `--import=${probe}`,
    ]);
    // And V8 took them: the heap's limits are those of a node started with exactly these flags.
    const expected = execFileSync(
      process.execPath,
      [...settings.nodeFlags, '-p', 'require("node:v8").getHeapStatistics().heap_size_limit'],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(started.heapSizeLimit).toBe(Number(expected.trim()));
  });

  it('refuses a package.json without the settings', () => {
    const file = join(scratch, 'package.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 'x', config: { server_node_options: '--max-semi-space-size=2' } }),
    );
    expect(() => serverProcess(file)).toThrow(/server_malloc_mmap_threshold/);
  });
});
