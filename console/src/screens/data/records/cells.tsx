import { href, type Place } from '../../../place';
import {
  type AnyRecord,
  displayValue,
  type FieldDef,
  keyOf,
  type May,
  type Reference,
  recordLabel,
  referencedKey,
  referencedRecord,
  type TableInfo,
} from '../../../queries/tables';
import { EditableCell, editsInPlace } from './cell-edit';
import type { Selection } from './selection';
import type { RecordsView } from './view';

/** What the grid and each of its rows are given. */
export interface GridProps {
  place: Place;
  info: TableInfo;
  fields: FieldDef[];
  tables: TableInfo[];
  may: May;
  selection: Selection;
  onEdit: (record: AnyRecord) => void;
  onDone: (notice: string) => void;
}

/** A key as its first eight characters (the whole key in its title and for screen readers). */
export function ShortId({ id }: { id: string }) {
  if (id.length <= 12) return <>{id}</>;
  return (
    <span title={id}>
      <span aria-hidden="true">{id.slice(0, 8)}…</span>
      <span className="sr-only">{id}</span>
    </span>
  );
}

/** The box that selects every record of the page (the selection survives paging). */
export function SelectPage({
  view,
  info,
  selection,
}: {
  view: RecordsView;
  info: TableInfo;
  selection: Selection;
}) {
  const key = keyOf(info);
  const pageIds = view.records.map((record) => String(record[key]));
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selection.selected.has(id));
  return (
    <input
      type="checkbox"
      aria-label="Select every record of this page"
      checked={allSelected}
      onChange={(event) => selection.mark(pageIds, event.target.checked)}
    />
  );
}

export function SelectCell({ info, selection, record }: GridProps & { record: AnyRecord }) {
  const id = String(record[keyOf(info)]);
  return (
    <input
      type="checkbox"
      aria-label={`Select record ${recordLabel(info, record)}`}
      checked={selection.selected.has(id)}
      onChange={(event) => selection.mark([id], event.target.checked)}
    />
  );
}

export function OpenCell({ place, info, record }: GridProps & { record: AnyRecord }) {
  return (
    <a href={href({ ...place, record: String(record[keyOf(info)]) })}>
      Open<span className="sr-only"> record {recordLabel(info, record)}</span>
    </a>
  );
}

/** A field's value: a reference as a link to its record, a key shortened, a plain value editable in place. */
export function FieldCell({
  place,
  info,
  tables,
  may,
  field,
  record,
  reference,
  isKey,
  onSaved,
}: GridProps & {
  field: FieldDef;
  record: AnyRecord;
  reference: Reference | undefined;
  isKey: boolean;
  onSaved: (notice: string) => Promise<void>;
}) {
  if (reference) {
    const target = tables.find((table) => table.name === reference.table);
    const referenced = referencedKey(record, reference, target);
    const embedded = referencedRecord(record, reference);
    if (!referenced) return null;
    return (
      <a href={href({ ...place, table: reference.table, record: referenced, view: undefined })}>
        {embedded ? recordLabel(target, embedded) : <ShortId id={referenced} />}
      </a>
    );
  }
  const text = displayValue(record[field.name]);
  if (isKey) return <ShortId id={text} />;
  const deleted = record.is_deleted === true;
  if (!may.change || deleted || !editsInPlace(field, keyOf(info))) return <>{text}</>;
  return (
    <EditableCell
      place={place}
      table={info.name}
      field={field}
      record={record}
      id={String(record[keyOf(info)])}
      label={recordLabel(info, record)}
      onSaved={onSaved}
    />
  );
}
