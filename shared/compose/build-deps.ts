import type { Config } from '../config';
import type { Deps } from '../deps';
import { composeDeps, type DepsOverrides } from './compose';
import { sqlPlane } from './sql-plane';

/**
 * All the dependencies, data plane included: the local server, the tests and the command-line tools. A Lambda
 * composes only what its group uses (cloud.ts).
 */
export function buildDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  return composeDeps(config, sqlPlane(config), overrides);
}
