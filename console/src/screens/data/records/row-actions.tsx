import { useDelete } from '@refinedev/core';
import { useState } from 'react';
import type { Place } from '../../../place';
import { errorText } from '../../../queries/client';
import {
  type AnyRecord,
  foreignKeysOf,
  keyOf,
  type May,
  type Reference,
  recordLabel,
  recordsOf,
  referencedKey,
  type TableInfo,
  useRefresh,
} from '../../../queries/tables';
import type { Selection } from './selection';

/** A record as the API stores it: populated references back to their keys (for the edit form). */
function unpopulated(record: AnyRecord, references: Reference[], tables: TableInfo[]): AnyRecord {
  const plain = { ...record };
  for (const reference of references) {
    const target = tables.find((table) => table.name === reference.table);
    plain[reference.field] = referencedKey(record, reference, target) ?? null;
    if (reference.relation !== reference.field) delete plain[reference.relation];
  }
  return plain;
}

/** A row's actions: edit and delete (confirmed) a live record; restore or delete for good a deleted one. */
export function RowActions({
  place,
  info,
  tables,
  may,
  record,
  selection,
  onEdit,
  onDone,
}: {
  place: Place;
  info: TableInfo;
  tables: TableInfo[];
  may: May;
  record: AnyRecord;
  selection: Selection;
  onEdit: (record: AnyRecord) => void;
  onDone: (notice: string) => void;
}) {
  const refresh = useRefresh(place);
  const remove = useDelete();
  const [confirming, setConfirming] = useState<string | null>(null);
  const id = String(record[keyOf(info)]);
  const label = recordLabel(info, record);
  const deleted = record.is_deleted === true;
  const references = foreignKeysOf(info);
  async function act(what: () => Promise<unknown>, done: string) {
    try {
      await what();
      selection.mark([id], false);
      await refresh('records');
      onDone(done);
    } catch (error) {
      onDone(errorText(error).message);
    }
    setConfirming(null);
  }
  const softDeleteRecord = () =>
    act(
      () =>
        remove.mutateAsync({ resource: info.name, id, meta: { app: place.app }, successNotification: false }),
      'Record deleted.',
    );
  const restore = () => act(() => recordsOf(place, info.name).restore(id), 'Record restored.');
  const deleteForGood = () =>
    act(() => recordsOf(place, info.name).delete(id, { hard: true }), 'Record deleted for good.');
  return (
    <td className="actions">
      {deleted ? (
        <>
          {may.change && (
            <button type="button" onClick={restore} aria-label={`Restore record ${label}`}>
              Restore
            </button>
          )}
          {!may.delete ? null : confirming === id ? (
            <button
              type="button"
              className="danger"
              onClick={deleteForGood}
              aria-label={`Confirm deleting record ${label} for good`}
            >
              Confirm delete for good
            </button>
          ) : (
            <button
              type="button"
              onClick={() => setConfirming(id)}
              aria-label={`Delete for good: record ${label}`}
            >
              Delete for good
            </button>
          )}
        </>
      ) : (
        <>
          {may.change && (
            <button
              type="button"
              onClick={() => onEdit(unpopulated(record, references, tables))}
              aria-label={`Edit record ${id}`}
            >
              Edit
            </button>
          )}
          {!may.delete ? null : confirming === id ? (
            <button
              type="button"
              className="danger"
              onClick={softDeleteRecord}
              aria-label={`Confirm delete of record ${id}`}
            >
              Confirm delete
            </button>
          ) : (
            <button type="button" onClick={() => setConfirming(id)} aria-label={`Delete record ${id}`}>
              Delete
            </button>
          )}
        </>
      )}
    </td>
  );
}
