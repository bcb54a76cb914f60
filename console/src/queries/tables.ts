import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { paths } from '../../../client/src/index';
import type { Place } from '../place';
import { answerOf, clientFor } from './client';
import { readTable } from './table-types';

/**
 * The data tables' typed calls (one function per operation the screens make), their queries, and the refresh after
 * a change; the model itself is in table-types.ts.
 */

export * from './table-types';

export function useTables(place: Place) {
  return useQuery({
    queryKey: ['tables', place.site, place.app],
    queryFn: async () => {
      const { data } = await answerOf(
        clientFor(place.site).GET('/api/apps/{app_slug}/datatables/', {
          params: { path: { app_slug: place.app ?? '' } },
        }),
      );
      return { data: data.map(readTable) };
    },
  });
}

export function useTable(place: Place, name: string | undefined) {
  return useQuery({
    queryKey: ['table', place.site, place.app, name],
    enabled: Boolean(name),
    queryFn: async () => {
      const { data } = await answerOf(
        clientFor(place.site).GET('/api/apps/{app_slug}/datatables/{name}/', {
          params: { path: { app_slug: place.app ?? '', name: name ?? '' } },
        }),
      );
      return { data: readTable(data) };
    },
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

/** The calls that change a table's schema, for the place's site and app. */
export function tableCalls(place: Place, table: string) {
  const api = clientFor(place.site);
  const path = { app_slug: place.app ?? '', name: table };
  return {
    addField: (body: { name: string; type: string; constraints?: Record<string, unknown> }) =>
      answerOf(api.POST('/api/apps/{app_slug}/datatables/{name}/fields/', { params: { path }, body })),
    dropField: (field: string) =>
      answerOf(
        api.DELETE('/api/apps/{app_slug}/datatables/{name}/fields/{field}/', {
          params: { path: { ...path, field } },
        }),
      ),
    addIndex: (body: { fields: string[]; name?: string; unique?: boolean }) =>
      answerOf(api.POST('/api/apps/{app_slug}/datatables/{name}/indexes/', { params: { path }, body })),
    dropIndex: (index: string) =>
      answerOf(
        api.DELETE('/api/apps/{app_slug}/datatables/{name}/indexes/{index}/', {
          params: { path: { ...path, index } },
        }),
      ),
    setGraph: (graph: { enabled: boolean; types: { name: string; inverse?: string }[] }) =>
      answerOf(api.PATCH('/api/apps/{app_slug}/datatables/{name}/', { params: { path }, body: { graph } })),
    drop: () => answerOf(api.DELETE('/api/apps/{app_slug}/datatables/{name}/', { params: { path } })),
  };
}

/** What a new table is made of: its name and its schema, as the API takes them. */
export type NewTable =
  paths['/api/apps/{app_slug}/datatables/']['post']['requestBody']['content']['application/json'];

/** Creates a table of the place's app. */
export function createTable(place: Place, body: NewTable) {
  return answerOf(
    clientFor(place.site).POST('/api/apps/{app_slug}/datatables/', {
      params: { path: { app_slug: place.app ?? '' } },
      body,
    }),
  );
}
