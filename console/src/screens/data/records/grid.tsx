import { href, type Place } from '../../../place';
import {
  type AnyRecord,
  displayValue,
  type FieldDef,
  foreignKeysOf,
  keyOf,
  type May,
  recordLabel,
  referencedKey,
  referencedRecord,
  type TableInfo,
} from '../../../queries/tables';
import { RowActions } from './row-actions';
import type { Selection } from './selection';
import type { RecordsView } from './view';

/** What the grid and each of its rows are given. */
interface GridProps {
  place: Place;
  info: TableInfo;
  fields: FieldDef[];
  tables: TableInfo[];
  may: May;
  selection: Selection;
  onEdit: (record: AnyRecord) => void;
  onDone: (notice: string) => void;
}

/** The records of the page: a column a field (sortable), references as links, a row's actions. */
export function RecordsGrid({ view, ...props }: GridProps & { view: RecordsView }) {
  const { info, fields, may, selection } = props;
  const key = keyOf(info);
  const pageIds = view.records.map((record) => String(record[key]));
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selection.selected.has(id));
  return (
    <div className="scroll">
      <table className="grid cards">
        <caption className="sr-only">Records of {info.name}</caption>
        <thead>
          <tr>
            {may.delete && (
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select every record of this page"
                  checked={allSelected}
                  onChange={(event) => selection.mark(pageIds, event.target.checked)}
                />
              </th>
            )}
            <th scope="col">
              <span className="sr-only">Open</span>
            </th>
            {fields.map((field) => {
              const sorted = view.sorters[0]?.field === field.name ? view.sorters[0].order : undefined;
              return (
                <th
                  key={field.name}
                  scope="col"
                  aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                >
                  <button type="button" className="sort" onClick={() => view.toggleSort(field.name)}>
                    {field.name}
                    <span aria-hidden="true">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
                  </button>
                </th>
              );
            })}
            {(may.change || may.delete) && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {view.records.map((record) => (
            <Row key={String(record[key])} record={record} {...props} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A key as its first eight characters (the whole key in its title and for screen readers). */
function ShortId({ id }: { id: string }) {
  if (id.length <= 12) return <>{id}</>;
  return (
    <span title={id}>
      <span aria-hidden="true">{id.slice(0, 8)}…</span>
      <span className="sr-only">{id}</span>
    </span>
  );
}

/** A cell's value: a key shortened, anything else as text. */
function Value({ value, isKey }: { value: unknown; isKey: boolean }) {
  const text = displayValue(value);
  return isKey ? <ShortId id={text} /> : <>{text}</>;
}

function Row({ record, ...props }: GridProps & { record: AnyRecord }) {
  const { place, info, fields, tables, may, selection } = props;
  const id = String(record[keyOf(info)]);
  const label = recordLabel(info, record);
  const referenceOf = new Map(foreignKeysOf(info).map((reference) => [reference.field, reference]));
  return (
    <tr>
      {may.delete && (
        <td>
          <input
            type="checkbox"
            aria-label={`Select record ${label}`}
            checked={selection.selected.has(id)}
            onChange={(event) => selection.mark([id], event.target.checked)}
          />
        </td>
      )}
      <td>
        <a href={href({ ...place, record: id })}>
          Open<span className="sr-only"> record {label}</span>
        </a>
      </td>
      {fields.map((field) => {
        const reference = referenceOf.get(field.name);
        if (!reference)
          return (
            <td key={field.name} data-field={field.name} data-label={field.name}>
              <Value value={record[field.name]} isKey={field.name === keyOf(info)} />
            </td>
          );
        const target = tables.find((table) => table.name === reference.table);
        const referenced = referencedKey(record, reference, target);
        const embedded = referencedRecord(record, reference);
        return (
          <td key={field.name} data-field={field.name} data-label={field.name}>
            {referenced && (
              <a href={href({ ...place, table: reference.table, record: referenced, view: undefined })}>
                {embedded ? recordLabel(target, embedded) : <ShortId id={referenced} />}
              </a>
            )}
          </td>
        );
      })}
      {(may.change || may.delete) && <RowActions record={record} {...props} />}
    </tr>
  );
}
