import { useId, useState } from 'react';
import { SelectField } from '../../kit/fields';
import type { Place } from '../../place';
import { errorText } from '../../queries/client';
import { type AnyRecord, recordsOf, type TableInfo } from '../../queries/tables';
import { ProgressBar, useBatches } from './batches';
import { maxFileBytes, recordsOfFile } from './csv';

/**
 * Bulk import of a CSV or JSON file: records sent through the API's bulk create (an array body, all or nothing
 * per request) in batches, one at a time, with a progress bar and a Cancel that stops after the batch in flight.
 * A refused batch stops the import and lists the records refused and why; the file and choices stay.
 */

interface Refusal {
  message: string;
  rows: string[];
}

export function ImportPanel({ place, info, onDone }: { place: Place; info: TableInfo; onDone: () => void }) {
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [count, setCount] = useState<number | null>(null);
  const [readError, setReadError] = useState('');
  const [batchSize, setBatchSize] = useState('100');
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const batches = useBatches();
  const { state } = batches;

  async function read(chosen: File): Promise<AnyRecord[]> {
    if (chosen.size > maxFileBytes) throw new Error(`${chosen.name} is larger than 20 MiB: split it.`);
    return recordsOfFile(chosen.name, await chosen.text(), info.schema.fields);
  }

  async function choose(chosen: File | null) {
    setFile(chosen);
    setCount(null);
    setReadError('');
    setRefusal(null);
    batches.reset();
    if (!chosen) return;
    try {
      setCount((await read(chosen)).length);
    } catch (error) {
      setReadError(error instanceof Error ? error.message : String(error));
    }
  }

  async function start() {
    if (!file) return;
    setRefusal(null);
    let records: AnyRecord[];
    try {
      records = await read(file);
    } catch (error) {
      setReadError(error instanceof Error ? error.message : String(error));
      return;
    }
    const table = recordsOf(place, info.name);
    const outcome = await batches.run(records, Number(batchSize), async (batch) => {
      const created = await table.createMany(batch, batch.length);
      return created.length;
    });
    if (outcome.failure) {
      const { start: first, size, error } = outcome.failure;
      const { message, fields } = errorText(error);
      const rows = Object.entries(fields).map(([key, messages]) => {
        const match = /^(\d+)\.(.+)$/.exec(key);
        return match
          ? `Record ${first + Number(match[1]) + 1}: ${match[2]}: ${messages.join(' ')}`
          : `${key}: ${messages.join(' ')}`;
      });
      setRefusal({
        message: `Records ${first + 1}–${first + size} were refused, so none of them was imported: ${message}`,
        rows,
      });
    }
    if (outcome.done > 0) onDone();
  }

  const status =
    state.outcome === 'finished'
      ? `${state.done} of ${state.total} records imported from ${file?.name ?? 'the file'}.`
      : state.outcome === 'cancelled'
        ? `Import cancelled: ${state.done} of ${state.total} records imported (records 1–${state.done}); the others were not sent.`
        : state.outcome === 'failed'
          ? `Import stopped: ${state.done} of ${state.total} records imported before the refused batch.`
          : state.running
            ? `${state.done} of ${state.total} records imported…`
            : '';
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Import records from a file</h3>
      <p className="hint">
        A JSON array of records, or CSV with a header row naming the fields. Records are sent in batches; each
        batch is all or nothing.
      </p>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-file`}>File (CSV or JSON)</label>
          <input
            id={`${id}-file`}
            type="file"
            accept=".csv,.json,text/csv,application/json"
            disabled={state.running}
            aria-invalid={readError ? true : undefined}
            aria-describedby={readError ? `${id}-file-error` : undefined}
            onChange={(event) => choose(event.target.files?.[0] ?? null)}
          />
          {readError && (
            <span className="field-error" id={`${id}-file-error`}>
              {readError}
            </span>
          )}
        </div>
        <SelectField
          label="Records per request"
          value={batchSize}
          options={['10', '100', '500', '1000'].map((size) => [size, size])}
          onChange={setBatchSize}
          disabled={state.running}
        />
        <button
          type="button"
          className="primary"
          disabled={!file || count === null || count === 0 || state.running}
          onClick={start}
        >
          {count === null ? 'Import' : `Import ${count} record${count === 1 ? '' : 's'}`}
        </button>
        {state.running && (
          <button type="button" onClick={batches.cancel}>
            Cancel import
          </button>
        )}
      </div>
      {file && count !== null && !state.running && !state.outcome && (
        <p className="muted">
          {count} record{count === 1 ? '' : 's'} read from {file.name}.
        </p>
      )}
      <ProgressBar label="Import progress" state={state} />
      <p className="import-status" role="status">
        {status}
      </p>
      {refusal && (
        <div role="alert" className="error">
          {refusal.message}
          {refusal.rows.length > 0 && (
            <ul aria-label="Refused records">
              {refusal.rows.map((row) => (
                <li key={row}>{row}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
