import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Place } from '../place';
import { clientFor, get } from './client';
import { type TableInfo, tablePath, tablesPath } from './table-types';

/** The data screens' shared queries and the refresh after a change; the model itself is in types.ts. */

export * from './table-types';

export function useTables(place: Place) {
  return useQuery({
    queryKey: ['tables', place.site, place.app],
    queryFn: () => get<{ data: TableInfo[] }>(tablesPath(place.app ?? ''), place.site, { page_size: '100' }),
  });
}

export function useTable(place: Place, name: string | undefined) {
  return useQuery({
    queryKey: ['table', place.site, place.app, name],
    enabled: Boolean(name),
    queryFn: () => get<{ data: TableInfo }>(tablePath(place.app ?? '', name ?? ''), place.site),
  });
}

/** The typed client's records of a table, for the current site and app. */
export function recordsOf(place: Place, table: string) {
  return clientFor(place.site)
    .app(place.app ?? '')
    .table(table);
}

/** After a change: the table, the list of tables and every read of records of this app are read again. */
export function useRefresh(place: Place) {
  const queries = useQueryClient();
  return async (what: 'schema' | 'records' | 'all' = 'all') => {
    const waits: Promise<void>[] = [];
    if (what !== 'records') {
      waits.push(queries.invalidateQueries({ queryKey: ['table', place.site, place.app] }));
      waits.push(queries.invalidateQueries({ queryKey: ['tables', place.site, place.app] }));
    }
    waits.push(queries.invalidateQueries({ queryKey: ['records', place.site, place.app] }));
    waits.push(queries.invalidateQueries({ queryKey: ['record', place.site, place.app] }));
    // refine's own reads (its hooks key them under `data`).
    waits.push(queries.invalidateQueries({ queryKey: ['data'] }));
    await Promise.all(waits);
  };
}
