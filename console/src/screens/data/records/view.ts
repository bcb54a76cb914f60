import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Place } from '../../../place';
import { foreignKeysOf, keyOf, recordsOf, type TableInfo } from '../../../queries/tables';
import { toFilter } from '../filters';
import { type GridState, goToGrid, readGrid, type Sorter } from './address';

export type { Show, Sorter } from './address';

/**
 * The order the grid shows when no column is sorted, and the tie-breaker of every sort: the records as they were
 * created (`created_at`, when the table has it), then by key, so a page never shuffles between reloads. A search
 * without a sort is ordered by relevance, as the API ranks it.
 */
export function defaultOrder(info: TableInfo): Sorter[] {
  const key = keyOf(info);
  const created = info.schema.fields.some((field) => field.name === 'created_at' && key !== 'created_at');
  return [...(created ? [{ field: 'created_at', order: 'asc' as const }] : []), { field: key, order: 'asc' }];
}

/** The order in words, as the grid states it above its rows. */
export function orderText(info: TableInfo, state: GridState): string {
  const [sorter] = state.sorters;
  if (sorter) return `Sorted by ${sorter.field}, ${sorter.order === 'asc' ? 'ascending' : 'descending'}.`;
  if (state.asked) return 'Best matches first.';
  const [first, second] = defaultOrder(info);
  return second
    ? `Oldest first (by ${first?.field}, then ${second.field}). Sort by a column's header.`
    : `By ${first?.field}, ascending. Sort by a column's header.`;
}

/**
 * What the grid shows: the page of records the filters, the search, the sort, the page and the deleted-records
 * choice of the address select (address.ts), read through the typed client (references populated). Every change
 * is a new address, so a reload shows the same page.
 */
export function useRecordsView(place: Place, info: TableInfo) {
  const references = foreignKeysOf(info);
  const state = readGrid(
    place.view,
    info.schema.fields.map((field) => field.name),
  );
  const { conditions, sorters, page, pageSize, asked, show } = state;
  const visibility =
    show === 'all' ? { includeDeleted: true } : show === 'deleted' ? { onlyDeleted: true } : {};
  const query = useQuery({
    queryKey: ['records', place.site, place.app, info.name, info.version, state],
    placeholderData: keepPreviousData,
    queryFn: () => {
      const table = recordsOf(place, info.name);
      const order = sorters.length || !asked ? [...sorters, ...defaultOrder(info)] : [];
      const list = {
        filter: toFilter(conditions),
        sort: order.filter((sorter, i) => order.findIndex((other) => other.field === sorter.field) === i),
        paging: { page, pageSize },
        ...(references.length ? { populate: references.map((reference) => reference.relation) } : {}),
        ...visibility,
      };
      return asked ? table.search(asked, list) : table.list(list);
    },
  });
  const total = query.data?.total ?? 0;
  /** A new state: what changes the records (all but the page) goes back to the first page. */
  const go = (change: Partial<GridState>) => goToGrid(place, { ...state, page: 1, ...change });
  /** A column's sort: ascending, then descending, then none (the default order). */
  function toggleSort(field: string) {
    const now = sorters[0]?.field === field ? sorters[0].order : undefined;
    go({
      sorters: now === 'asc' ? [{ field, order: 'desc' }] : now === 'desc' ? [] : [{ field, order: 'asc' }],
    });
  }
  return {
    query,
    state,
    visibility,
    order: orderText(info, state),
    records: query.data?.data ?? [],
    total,
    pages: Math.max(1, Math.ceil(total / pageSize)),
    sorters,
    toggleSort,
    page,
    setPage: (next: number) => go({ page: next }),
    pageSize,
    setPageSize: (size: number) => go({ pageSize: size }),
    asked,
    setAsked: (text: string) => go({ asked: text }),
    conditions,
    setConditions: (next: GridState['conditions']) => go({ conditions: next }),
    show,
    setShow: (next: GridState['show']) => go({ show: next }),
  };
}

export type RecordsView = ReturnType<typeof useRecordsView>;
