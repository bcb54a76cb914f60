import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  type SortingState,
  useReactTable,
} from '@tanstack/react-table';
import { Fragment, useMemo } from 'react';
import { type AnyRecord, foreignKeysOf, keyOf, recordLabel, useRefresh } from '../../../queries/tables';
import { FieldCell, type GridProps, OpenCell, SelectCell, SelectPage } from './cells';
import { RowActions } from './row-actions';
import type { RecordsView } from './view';

/** A column's own cell element: field columns carry their name (the phone's cards show it before the value). */
interface ColumnMeta {
  field?: string;
  /** The column renders its own `<td>` (the row's actions). */
  ownCell?: boolean;
}

/**
 * The grid's columns (@tanstack/react-table, headless): a selection box, "Open", a column a field (a key
 * shortened, a reference as a link, a plain value editable in place), the row's actions.
 */
function useColumns(props: GridProps, view: RecordsView): ColumnDef<AnyRecord>[] {
  const { info, fields, may } = props;
  const refresh = useRefresh(props.place);
  const onSaved = async (notice: string) => {
    await refresh('records');
    props.onDone(notice);
  };
  const key = keyOf(info);
  const references = new Map(foreignKeysOf(info).map((reference) => [reference.field, reference]));
  const columns: ColumnDef<AnyRecord>[] = [];
  if (may.delete)
    columns.push({
      id: '_select',
      header: () => <SelectPage view={view} info={info} selection={props.selection} />,
      cell: ({ row }) => <SelectCell {...props} record={row.original} />,
    });
  columns.push({
    id: '_open',
    header: () => <span className="sr-only">Open</span>,
    cell: ({ row }) => <OpenCell {...props} record={row.original} />,
  });
  for (const field of fields)
    columns.push({
      id: field.name,
      enableSorting: true,
      header: field.name,
      meta: { field: field.name } satisfies ColumnMeta,
      cell: ({ row }) => (
        <FieldCell
          {...props}
          field={field}
          record={row.original}
          reference={references.get(field.name)}
          isKey={field.name === key}
          onSaved={onSaved}
        />
      ),
    });
  if (may.change || may.delete)
    columns.push({
      id: '_actions',
      header: 'Actions',
      meta: { ownCell: true } satisfies ColumnMeta,
      cell: ({ row }) => <RowActions record={row.original} {...props} />,
    });
  return columns;
}

/** The records of the page: sorted by a column's header (the address holds the sort), a card each on a phone. */
export function RecordsGrid({ view, ...props }: GridProps & { view: RecordsView }) {
  const { info } = props;
  const key = keyOf(info);
  const columns = useColumns(props, view);
  const sorting: SortingState = useMemo(
    () => view.sorters.map((sorter) => ({ id: sorter.field, desc: sorter.order === 'desc' })),
    [view.sorters],
  );
  const table = useReactTable({
    data: view.records,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (record) => String(record[key]),
    manualSorting: true,
    manualPagination: true,
    state: { sorting },
  });
  return (
    <div className="scroll">
      <table className="grid cards">
        <caption className="sr-only">Records of {info.name}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const field = (header.column.columnDef.meta as ColumnMeta | undefined)?.field;
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                  >
                    {field ? (
                      <button type="button" className="sort" onClick={() => view.toggleSort(field)}>
                        {field}
                        <span aria-hidden="true">
                          {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                        </span>
                      </button>
                    ) : (
                      flexRender(header.column.columnDef.header, header.getContext())
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} aria-label={recordLabel(info, row.original)}>
              {row.getVisibleCells().map((cell) => {
                const meta = cell.column.columnDef.meta as ColumnMeta | undefined;
                const content = flexRender(cell.column.columnDef.cell, cell.getContext());
                if (meta?.ownCell) return <Fragment key={cell.id}>{content}</Fragment>;
                return (
                  <td key={cell.id} data-field={meta?.field} data-label={meta?.field}>
                    {content}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
