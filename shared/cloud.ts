import { loadConfig } from './config';
import { buildDeps, type Deps } from './deps';

let deps: Deps | undefined;

/** The dependencies of a Lambda container: built on the first invocation, then reused. */
export function cloudDeps(): Deps {
  deps ??= buildDeps(loadConfig());
  return deps;
}
