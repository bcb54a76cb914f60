import { onFirstUse } from '../lazy';
import type { Operation } from './context';

/**
 * Operations whose module loads on the first request to one of them: a group's cold start does not load code that
 * only some of its routes run (a data table's schema management, the graph's edges). Later requests call the
 * loaded operation directly, through one resolved promise.
 */
export function onFirstRequest<Id extends string>(
  ids: readonly Id[],
  load: () => Promise<Readonly<Record<Id, Operation>>>,
): Readonly<Record<Id, Operation>> {
  const operations = onFirstUse(load);
  return Object.fromEntries(
    ids.map((id) => [id, async (ctx: Parameters<Operation>[0]) => (await operations())[id](ctx)]),
  ) as Record<Id, Operation>;
}
