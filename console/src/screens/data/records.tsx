import { useDelete } from '@refinedev/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { SelectField, TextField } from '../../kit/fields';
import { Failure } from '../../kit/parts';
import { href, type Place } from '../../place';
import { errorText } from '../../queries/client';
import type { May } from '../../queries/table-types';
import {
  type AnyRecord,
  displayValue,
  foreignKeysOf,
  hasSoftDelete,
  keyOf,
  type Reference,
  recordLabel,
  recordsOf,
  referencedKey,
  referencedRecord,
  type TableInfo,
  useRefresh,
} from '../../queries/tables';
import { ProgressBar, useBatches } from './batches';
import { type Condition, FilterBuilder, FilterChips, toFilter } from './filters';
import { RecordForm } from './record-form';

/**
 * The grid of a table's records over the typed client: filters (JSON paths included), full-text search combined
 * with them, sorting, paging, foreign keys populated as links, deleted records (restore, delete for good), and
 * selection with a bulk delete in batches.
 */

type Show = 'live' | 'all' | 'deleted';

/** An excerpt of the API (`<b>` around the matches, the rest text) as React nodes: never set as HTML. */
export function highlighted(excerpt: string) {
  return excerpt.split(/(<b>.*?<\/b>)/).map((part, index) => {
    const match = /^<b>(.*)<\/b>$/.exec(part);
    return match ? <mark key={index}>{match[1]}</mark> : <span key={index}>{part}</span>;
  });
}

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

const deleteBatch = 25;

export function Records({
  place,
  info,
  may,
  tables,
  conditions,
  setConditions,
  show,
  setShow,
}: {
  place: Place;
  info: TableInfo;
  may: May;
  tables: TableInfo[];
  conditions: Condition[];
  setConditions: (change: (current: Condition[]) => Condition[]) => void;
  show: Show;
  setShow: (show: Show) => void;
}) {
  const fields = info.schema.fields.filter((field) => field.type !== 'tsvector');
  const key = keyOf(info);
  const references = foreignKeysOf(info);
  const referenceOf = new Map(references.map((reference) => [reference.field, reference]));
  const softDelete = hasSoftDelete(info);
  const searchable = info.schema.fields.some((field) => field.type === 'tsvector');
  const refresh = useRefresh(place);
  const [sorters, setSorters] = useState<{ field: string; order: 'asc' | 'desc' }[]>([]);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [editing, setEditing] = useState<AnyRecord | 'new' | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [searchText, setSearchText] = useState('');
  const [asked, setAsked] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirmBulk, setConfirmBulk] = useState(false);
  const [bulkMessage, setBulkMessage] = useState('');
  const bulk = useBatches();
  const remove = useDelete();
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
  const records = query.data?.data ?? [];
  const total = query.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const hardOnly = show === 'deleted' || !softDelete;

  function toggleSort(field: string) {
    setSorters((current) => {
      const now = current[0]?.field === field ? current[0].order : undefined;
      return now === 'asc' ? [{ field, order: 'desc' }] : now === 'desc' ? [] : [{ field, order: 'asc' }];
    });
    setPage(1);
  }

  async function act(id: string, what: () => Promise<unknown>, done: string) {
    try {
      await what();
      setSelected((current) => {
        const next = new Set(current);
        next.delete(id);
        return next;
      });
      await refresh('records');
      setNotice(done);
    } catch (error) {
      setNotice(errorText(error).message);
    }
    setConfirming(null);
  }
  const softDeleteRecord = (id: string) =>
    act(
      id,
      () =>
        remove.mutateAsync({ resource: info.name, id, meta: { app: place.app }, successNotification: false }),
      'Record deleted.',
    );
  const restore = (id: string) => act(id, () => recordsOf(place, info.name).restore(id), 'Record restored.');
  const deleteForGood = (id: string) =>
    act(id, () => recordsOf(place, info.name).delete(id, { hard: true }), 'Record deleted for good.');

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

  const pageIds = records.map((record) => String(record[key]));
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const bulkStatus =
    bulk.state.outcome === 'finished'
      ? `${bulk.state.done} of ${bulk.state.total} records deleted.`
      : bulk.state.outcome === 'cancelled'
        ? `Delete cancelled: ${bulk.state.done} of ${bulk.state.total} records deleted; the others were kept.`
        : bulk.state.outcome === 'failed'
          ? `${bulk.state.done} of ${bulk.state.total} records deleted.`
          : bulk.state.running
            ? `${bulk.state.done} of ${bulk.state.total} records deleted…`
            : '';

  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Records</h2>
      {searchable && (
        <div className="card">
          <form
            className="filters"
            aria-label="Full-text search"
            onSubmit={(event) => {
              event.preventDefault();
              setAsked(searchText.trim());
              setPage(1);
            }}
          >
            <TextField
              label="Search text"
              value={searchText}
              onChange={setSearchText}
              hint="Combines with the filters below; best matches first unless a column is sorted."
            />
            <button type="submit">Search</button>
            {asked && (
              <button
                type="button"
                onClick={() => {
                  setAsked('');
                  setSearchText('');
                  setPage(1);
                }}
              >
                Clear search
              </button>
            )}
          </form>
          {asked && query.data && !query.isPlaceholderData && (
            <>
              <p aria-live="polite" className="status">
                {total} match{total === 1 ? '' : 'es'} for “{asked}”, best first
              </p>
              <ol className="hits">
                {records.map((hit, index) => (
                  <li key={index}>{highlighted(String(hit.excerpt ?? ''))}</li>
                ))}
              </ol>
            </>
          )}
        </div>
      )}
      <FilterBuilder
        fields={fields}
        onAdd={(condition) => {
          setConditions((current) => [...current, condition]);
          setPage(1);
        }}
      />
      <FilterChips
        conditions={conditions}
        onRemove={(index) => {
          setConditions((current) => current.filter((_, i) => i !== index));
          setPage(1);
        }}
      />
      <div className="toolbar">
        {may.change ? (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            New record
          </button>
        ) : (
          <span className="muted">Read only: changing records needs the site's change permission.</span>
        )}
        {softDelete && (
          <SelectField
            label="Show"
            value={show}
            options={[
              ['live', 'Live records'],
              ['all', 'Live and deleted records'],
              ['deleted', 'Deleted records only'],
            ]}
            onChange={(value) => {
              setShow(value as Show);
              setSelected(new Set());
              setPage(1);
            }}
          />
        )}
        <p aria-live="polite" className="status">
          {query.isFetching ? 'Loading…' : `${total} record${total === 1 ? '' : 's'}`}
          {notice ? ` · ${notice}` : ''}
        </p>
      </div>
      {may.delete && (selected.size > 0 || bulk.state.total > 0) && (
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
            {bulkStatus}
            {bulkMessage ? ` ${bulkMessage}` : ''}
          </p>
        </div>
      )}
      {editing && (
        <RecordForm
          place={place}
          info={info}
          fields={fields}
          record={editing === 'new' ? undefined : editing}
          recordKey={key}
          onDone={async (message) => {
            setEditing(null);
            if (message) {
              setNotice(message);
              await refresh('records');
            }
          }}
        />
      )}
      {query.error ? <Failure error={query.error} /> : null}
      <div className="scroll">
        <table className="grid">
          <caption className="sr-only">Records of {info.name}</caption>
          <thead>
            <tr>
              {may.delete && (
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label="Select every record of this page"
                    checked={allSelected}
                    onChange={(event) =>
                      setSelected((current) => {
                        const next = new Set(current);
                        for (const id of pageIds) {
                          if (event.target.checked) next.add(id);
                          else next.delete(id);
                        }
                        return next;
                      })
                    }
                  />
                </th>
              )}
              <th scope="col">
                <span className="sr-only">Open</span>
              </th>
              {fields.map((field) => {
                const sorted = sorters[0]?.field === field.name ? sorters[0].order : undefined;
                return (
                  <th
                    key={field.name}
                    scope="col"
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                  >
                    <button type="button" className="sort" onClick={() => toggleSort(field.name)}>
                      {field.name}
                      <span aria-hidden="true">
                        {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </span>
                    </button>
                  </th>
                );
              })}
              {(may.change || may.delete) && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {records.map((record) => {
              const id = String(record[key]);
              const label = recordLabel(info, record);
              const deleted = record.is_deleted === true;
              return (
                <tr key={id}>
                  {may.delete && (
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select record ${label}`}
                        checked={selected.has(id)}
                        onChange={(event) =>
                          setSelected((current) => {
                            const next = new Set(current);
                            if (event.target.checked) next.add(id);
                            else next.delete(id);
                            return next;
                          })
                        }
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
                    if (!reference) return <td key={field.name}>{displayValue(record[field.name])}</td>;
                    const target = tables.find((table) => table.name === reference.table);
                    const referenced = referencedKey(record, reference, target);
                    const embedded = referencedRecord(record, reference);
                    return (
                      <td key={field.name}>
                        {referenced && (
                          <a href={href({ ...place, table: reference.table, record: referenced })}>
                            {embedded ? recordLabel(target, embedded) : referenced}
                          </a>
                        )}
                      </td>
                    );
                  })}
                  {(may.change || may.delete) && (
                    <td className="actions">
                      {deleted ? (
                        <>
                          {may.change && (
                            <button
                              type="button"
                              onClick={() => restore(id)}
                              aria-label={`Restore record ${label}`}
                            >
                              Restore
                            </button>
                          )}
                          {!may.delete ? null : confirming === id ? (
                            <button
                              type="button"
                              className="danger"
                              onClick={() => deleteForGood(id)}
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
                              onClick={() => setEditing(unpopulated(record, references, tables))}
                              aria-label={`Edit record ${id}`}
                            >
                              Edit
                            </button>
                          )}
                          {!may.delete ? null : confirming === id ? (
                            <button
                              type="button"
                              className="danger"
                              onClick={() => softDeleteRecord(id)}
                              aria-label={`Confirm delete of record ${id}`}
                            >
                              Confirm delete
                            </button>
                          ) : (
                            <button
                              type="button"
                              onClick={() => setConfirming(id)}
                              aria-label={`Delete record ${id}`}
                            >
                              Delete
                            </button>
                          )}
                        </>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages of records">
        <button type="button" onClick={() => setPage((current) => current - 1)} disabled={page <= 1}>
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" onClick={() => setPage((current) => current + 1)} disabled={page >= pages}>
          Next page
        </button>
        <SelectField
          label="Records per page"
          value={String(pageSize)}
          options={['10', '20', '50', '100'].map((size) => [size, size])}
          onChange={(value) => {
            setPageSize(Number(value));
            setPage(1);
          }}
        />
      </nav>
    </section>
  );
}
