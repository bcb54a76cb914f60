import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Place } from '../../../place';
import { foreignKeysOf, recordsOf, type TableInfo } from '../../../queries/tables';
import { type Condition, toFilter } from '../filters';

export type Show = 'live' | 'all' | 'deleted';
export interface Sorter {
  field: string;
  order: 'asc' | 'desc';
}

/**
 * What the grid shows: the page of records the filters, the search, the sort, the page and the deleted-records
 * choice select, read through the typed client (references populated).
 */
export function useRecordsView(place: Place, info: TableInfo, conditions: Condition[], show: Show) {
  const references = foreignKeysOf(info);
  const [sorters, setSorters] = useState<Sorter[]>([]);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [asked, setAsked] = useState('');
  const visibility =
    show === 'all' ? { includeDeleted: true } : show === 'deleted' ? { onlyDeleted: true } : {};
  const query = useQuery({
    queryKey: [
      'records',
      place.site,
      place.app,
      info.name,
      info.version,
      conditions,
      sorters,
      page,
      pageSize,
      asked,
      show,
    ],
    placeholderData: keepPreviousData,
    queryFn: () => {
      const table = recordsOf(place, info.name);
      const list = {
        filter: toFilter(conditions),
        sort: sorters,
        paging: { page, pageSize },
        ...(references.length ? { populate: references.map((reference) => reference.relation) } : {}),
        ...visibility,
      };
      return asked ? table.search(asked, list) : table.list(list);
    },
  });
  const total = query.data?.total ?? 0;
  /** A column's sort: ascending, then descending, then none; back to the first page. */
  function toggleSort(field: string) {
    setSorters((current) => {
      const now = current[0]?.field === field ? current[0].order : undefined;
      return now === 'asc' ? [{ field, order: 'desc' }] : now === 'desc' ? [] : [{ field, order: 'asc' }];
    });
    setPage(1);
  }
  return {
    query,
    records: query.data?.data ?? [],
    total,
    pages: Math.max(1, Math.ceil(total / pageSize)),
    sorters,
    toggleSort,
    page,
    setPage,
    pageSize,
    setPageSize,
    asked,
    setAsked,
  };
}

export type RecordsView = ReturnType<typeof useRecordsView>;
