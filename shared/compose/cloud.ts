import type { Config } from '../config';
import { loadConfig } from '../config';
import type { Deps } from '../deps';
import type { Sql } from '../sql/client';
import { composeDeps } from './compose';

/**
 * The dependencies of a Lambda container, built on the first invocation and then reused. `sql` composes the data
 * plane for the groups that use it (sql-plane.ts); the others leave it out, and with it the driver.
 */
export function cloudDeps(sql?: (config: Config) => () => Sql): () => Deps {
  let deps: Deps | undefined;
  return () => {
    if (!deps) {
      const config = loadConfig();
      deps = composeDeps(config, sql?.(config));
    }
    return deps;
  };
}
