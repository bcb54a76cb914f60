import { useState } from 'react';
import type { Place } from '../../../place';
import { errorText } from '../../../queries/client';
import { recordsOf, type TableInfo, useRefresh } from '../../../queries/tables';
import { ProgressBar, useBatches } from '../batches';
import type { Selection } from './selection';

const deleteBatch = 25;

/** The selected records' bulk delete, in batches of 25 with progress and a cancel (for good where soft delete is off). */
export function BulkDelete({
  place,
  info,
  selection,
  hardOnly,
}: {
  place: Place;
  info: TableInfo;
  selection: Selection;
  hardOnly: boolean;
}) {
  const refresh = useRefresh(place);
  const bulk = useBatches();
  const [confirmBulk, setConfirmBulk] = useState(false);
  const [bulkMessage, setBulkMessage] = useState('');
  const { selected, setSelected } = selection;
  async function bulkDelete() {
    setConfirmBulk(false);
    setBulkMessage('');
    const ids = [...selected];
    const outcome = await bulk.run(ids, deleteBatch, async (batch) => {
      const answer = await recordsOf(place, info.name).deleteMany(batch, { hard: hardOnly });
      return answer.deleted;
    });
    if (outcome.failure) setBulkMessage(`Delete stopped: ${errorText(outcome.failure.error).message}`);
    setSelected(new Set());
    await refresh('records');
  }
  if (selected.size === 0 && bulk.state.total === 0) return null;
  return (
    <div className="bulk">
      {selected.size > 0 && !bulk.state.running && (
        <>
          <span>{selected.size} selected</span>
          {confirmBulk ? (
            <>
              <button type="button" className="danger" onClick={bulkDelete}>
                Confirm deleting {selected.size} record{selected.size === 1 ? '' : 's'}
                {hardOnly ? ' for good' : ''}
              </button>
              <button type="button" onClick={() => setConfirmBulk(false)}>
                Keep them
              </button>
            </>
          ) : (
            <button type="button" onClick={() => setConfirmBulk(true)}>
              Delete {selected.size} selected{hardOnly ? ' for good' : ''}
            </button>
          )}
          <button type="button" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        </>
      )}
      <ProgressBar label="Delete progress" state={bulk.state} />
      {bulk.state.running && (
        <button type="button" onClick={bulk.cancel}>
          Cancel delete
        </button>
      )}
      <p className="bulk-status" role="status">
        {statusOf(bulk.state)}
        {bulkMessage ? ` ${bulkMessage}` : ''}
      </p>
    </div>
  );
}

function statusOf(state: ReturnType<typeof useBatches>['state']): string {
  return state.outcome === 'finished'
    ? `${state.done} of ${state.total} records deleted.`
    : state.outcome === 'cancelled'
      ? `Delete cancelled: ${state.done} of ${state.total} records deleted; the others were kept.`
      : state.outcome === 'failed'
        ? `${state.done} of ${state.total} records deleted.`
        : state.running
          ? `${state.done} of ${state.total} records deleted…`
          : '';
}
