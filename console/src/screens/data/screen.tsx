import { Failure } from '../../kit/parts';
import { href, type Place } from '../../place';
import type { Abilities } from '../../queries/organizations';
import type { May } from '../../queries/table-types';
import { type TableInfo, useRefresh, useTable, useTables } from '../../queries/tables';
import { AggregatePanel } from './aggregate';
import { ImportPanel } from './import';
import { RecordView } from './record';
import { Records } from './records';
import { useRecordsView } from './records/view';
import { SchemaView } from './schema';
import { Tables } from './tables';

/** The data screens: an app's tables, a table (records, aggregation, import, schema), a record. */

export function DataScreen({ place, abilities }: { place: Place; abilities?: Abilities }) {
  if (place.table)
    return <TableView key={`${place.table}/${place.record ?? ''}`} place={place} abilities={abilities} />;
  return <Tables place={place} abilities={abilities} />;
}

function TableView({ place, abilities }: { place: Place; abilities?: Abilities }) {
  const table = useTable(place, place.table);
  const tables = useTables(place);
  const refresh = useRefresh(place);
  if (table.isLoading) return <p>Loading…</p>;
  if (table.error || !table.data) return <Failure error={table.error} />;
  const info = table.data.data;
  // Each button for the site action its route needs, as the API answers it (docs/console.md, Permissions).
  const may: May = {
    configure: abilities?.can('configure') ?? false,
    change: abilities?.can('change') ?? false,
    delete: abilities?.can('delete') ?? false,
  };
  const all = tables.data?.data ?? [];
  if (place.record) return <RecordView place={place} info={info} tables={all} may={may} />;
  return <TablePage place={place} info={info} tables={all} may={may} onImported={() => refresh('records')} />;
}

/** A table's page: its records in the address's view, the aggregation over the same records, import, schema. */
function TablePage({
  place,
  info,
  tables,
  may,
  onImported,
}: {
  place: Place;
  info: TableInfo;
  tables: TableInfo[];
  may: May;
  onImported: () => void;
}) {
  const view = useRecordsView(place, info);
  return (
    <>
      <h1>Table {info.name}</h1>
      <p>
        <a href={href({ org: place.org, site: place.site, app: place.app })}>← All tables of {place.app}</a>
      </p>
      <Records place={place} info={info} may={may} tables={tables} view={view} />
      <AggregatePanel place={place} info={info} conditions={view.conditions} visibility={view.visibility} />
      {may.change && <ImportPanel place={place} info={info} onDone={onImported} />}
      <SchemaView place={place} info={info} canConfigure={may.configure} />
    </>
  );
}
