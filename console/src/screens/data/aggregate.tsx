import { useId, useState } from 'react';
import type { Aggregate } from '../../../../client/src/index';
import { ErrorSummary, SelectField } from '../../kit/fields';
import type { Place } from '../../place';
import { errorText } from '../../queries/client';
import {
  type AnyRecord,
  comparableTypes,
  displayValue,
  recordsOf,
  type TableInfo,
} from '../../queries/tables';
import { type Condition, toFilter } from './filters';

/**
 * Aggregation: count, sum, average, minimum or maximum over the records the grid's filters match (and its
 * deleted-records choice), optionally grouped by a field; the answer as a table (`_aggregate`, `_group_by`).
 */

const functions = [
  ['count', 'count'],
  ['sum', 'sum'],
  ['avg', 'average'],
  ['min', 'minimum'],
  ['max', 'maximum'],
] as const;

interface Result {
  columns: string[];
  rows: AnyRecord[];
  total: number;
}

export function AggregatePanel({
  place,
  info,
  conditions,
  visibility,
}: {
  place: Place;
  info: TableInfo;
  conditions: Condition[];
  visibility: { includeDeleted?: boolean; onlyDeleted?: boolean };
}) {
  const id = useId();
  const comparable = info.schema.fields.filter((field) => comparableTypes.has(field.type));
  const numeric = comparable.filter((field) => field.type === 'integer' || field.type === 'number');
  const [groupBy, setGroupBy] = useState('');
  const [fn, setFn] = useState<string>('count');
  const [of, setOf] = useState('');
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [busy, setBusy] = useState(false);
  const candidates = fn === 'sum' || fn === 'avg' ? numeric : comparable;
  const field = candidates.some((candidate) => candidate.name === of) ? of : (candidates[0]?.name ?? '');

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const aggregate = (fn === 'count' ? 'count(*)' : `${fn}(${field})`) as Aggregate<AnyRecord>;
    const aggregates: Aggregate<AnyRecord>[] = fn === 'count' ? [aggregate] : ['count(*)', aggregate];
    try {
      const answer = await recordsOf(place, info.name).aggregate({
        aggregates,
        ...(groupBy ? { groupBy: [groupBy], paging: { page: 1, pageSize: 100 } } : {}),
        filter: toFilter(conditions),
        ...visibility,
      });
      const keys = aggregates.map((name) => (name === 'count(*)' ? 'count' : `${fn}_${field}`));
      if ('groups' in answer)
        setResult({ columns: [groupBy, ...keys], rows: answer.groups, total: answer.total });
      else setResult({ columns: keys, rows: [answer.aggregates], total: 1 });
    } catch (failure) {
      setError(errorText(failure));
      setResult(null);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Aggregate</h3>
      <p className="hint">Over the records the filters above match.</p>
      <form className="filters" aria-label="Aggregate the records" onSubmit={submit} noValidate>
        <SelectField
          label="Group by"
          value={groupBy}
          options={[
            ['', '(no grouping)'],
            ...comparable.map((item): [string, string] => [item.name, item.name]),
          ]}
          onChange={setGroupBy}
        />
        <SelectField
          label="Function"
          value={fn}
          options={functions.map(([name, label]): [string, string] => [name, label])}
          onChange={setFn}
        />
        {fn !== 'count' && (
          <SelectField
            label="Of the field"
            value={field}
            options={candidates.map((item): [string, string] => [item.name, item.name])}
            onChange={setOf}
          />
        )}
        <button type="submit" disabled={busy || (fn !== 'count' && !field)}>
          Aggregate
        </button>
      </form>
      <ErrorSummary error={error} />
      {result && (
        <div className="scroll">
          <table className="aggregates">
            <caption>
              {groupBy
                ? `${result.total} group${result.total === 1 ? '' : 's'} by ${groupBy}`
                : 'All matching records'}
              {result.total > result.rows.length ? ` (the first ${result.rows.length})` : ''}
            </caption>
            <thead>
              <tr>
                {result.columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((row, index) => (
                <tr key={index}>
                  {result.columns.map((column) => (
                    <td key={column}>{displayValue(row[column]) || (column === groupBy ? '(empty)' : '')}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
