import { useState } from 'react';
import { SelectField } from '../../kit/fields';
import { Failure } from '../../kit/parts';
import { ReadOnly } from '../../kit/permissions';
import type { Place } from '../../place';
import {
  type AnyRecord,
  hasSoftDelete,
  keyOf,
  type May,
  type TableInfo,
  useRefresh,
} from '../../queries/tables';
import { FilterBuilder, FilterChips } from './filters';
import { RecordForm } from './record-form';
import { BulkDelete } from './records/bulk';
import { RecordsGrid } from './records/grid';
import { Pager } from './records/pager';
import { SearchPanel } from './records/search';
import { useSelection } from './records/selection';
import type { RecordsView } from './records/view';

export { highlighted } from './records/search';
export type { Show } from './records/view';

/**
 * The grid of a table's records over the typed client (console/src/screens/data/records/): filters (JSON paths
 * included), full-text search combined with them, sorting, paging, foreign keys populated as links, deleted
 * records (restore, delete for good), and selection with a bulk delete in batches.
 */
export function Records({
  place,
  info,
  may,
  tables,
  view,
}: {
  place: Place;
  info: TableInfo;
  may: May;
  tables: TableInfo[];
  view: RecordsView;
}) {
  const fields = info.schema.fields.filter((field) => field.type !== 'tsvector');
  const key = keyOf(info);
  const softDelete = hasSoftDelete(info);
  const refresh = useRefresh(place);
  const { conditions, show } = view;
  const selection = useSelection();
  const [editing, setEditing] = useState<AnyRecord | 'new' | null>(null);
  const [notice, setNotice] = useState('');
  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Records</h2>
      {info.schema.fields.some((field) => field.type === 'tsvector') && <SearchPanel view={view} />}
      <FilterBuilder fields={fields} onAdd={(condition) => view.setConditions([...conditions, condition])} />
      <FilterChips
        conditions={conditions}
        onRemove={(index) => view.setConditions(conditions.filter((_, i) => i !== index))}
      />
      <div className="toolbar">
        {may.change ? (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            New record
          </button>
        ) : (
          <ReadOnly what="changing records" action="change" />
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
              selection.setSelected(new Set());
              view.setShow(value);
            }}
          />
        )}
        <p className="muted order">{view.order}</p>
        <p aria-live="polite" className="status">
          {view.query.isFetching ? 'Loading…' : `${view.total} record${view.total === 1 ? '' : 's'}`}
          {notice ? ` · ${notice}` : ''}
        </p>
      </div>
      {may.delete && (
        <BulkDelete
          place={place}
          info={info}
          selection={selection}
          hardOnly={show === 'deleted' || !softDelete}
        />
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
      {view.query.error ? <Failure error={view.query.error} /> : null}
      <RecordsGrid
        {...{ place, info, fields, tables, may, view, selection }}
        onEdit={setEditing}
        onDone={setNotice}
      />
      <Pager view={view} />
    </section>
  );
}
