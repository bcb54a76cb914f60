import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How the local server's node process is started, so that its resident memory stays bounded under load
 * (docs/benchmarks.md, "Memory"; docs/local-runtime.md). Defined once, in the `config` of package.json:
 *
 * - `server_node_options`: V8 flags, put in front of NODE_OPTIONS (a flag the person starting it sets in
 *   NODE_OPTIONS comes later and wins);
 * - `server_malloc_mmap_threshold`: glibc's `MALLOC_MMAP_THRESHOLD_`, read by the C library when the process starts,
 *   so it can only come from the environment the process is started with.
 *
 * `npm start` reads them as `npm_package_config_*`; the bench's and the soak's project server read them here.
 */
export interface ServerProcess {
  /** node command-line flags (the same as `server_node_options`). */
  readonly nodeFlags: readonly string[];
  /** Environment the process must be started with. */
  readonly env: Readonly<Record<string, string>>;
}

const root = join(import.meta.dirname, '..');

export function serverProcess(packageJson = join(root, 'package.json')): ServerProcess {
  const config = (JSON.parse(readFileSync(packageJson, 'utf8')) as { config?: Record<string, unknown> })
    .config;
  const flags = config?.server_node_options;
  const threshold = config?.server_malloc_mmap_threshold;
  if (typeof flags !== 'string' || typeof threshold !== 'string')
    throw new Error(
      `${packageJson}: config.server_node_options and config.server_malloc_mmap_threshold must be strings`,
    );
  return {
    nodeFlags: flags.split(' ').filter(Boolean),
    env: { MALLOC_MMAP_THRESHOLD_: threshold },
  };
}
