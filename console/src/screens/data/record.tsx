import { useQuery } from '@tanstack/react-query';
import { Failure } from '../../kit/parts';
import { href, type Place } from '../../place';
import type { May } from '../../queries/table-types';
import {
  displayValue,
  foreignKeysOf,
  graphTypes,
  recordLabel,
  recordsOf,
  referencedKey,
  referencedRecord,
  type TableInfo,
} from '../../queries/tables';
import { Relationships } from './record/relationships';

export function RecordView({
  place,
  info,
  tables,
  may,
}: {
  place: Place;
  info: TableInfo;
  tables: TableInfo[];
  may: May;
}) {
  const id = place.record ?? '';
  const references = foreignKeysOf(info);
  const record = useQuery({
    queryKey: ['record', place.site, place.app, info.name, id, info.version],
    queryFn: () =>
      recordsOf(place, info.name).get(id, {
        includeDeleted: true,
        ...(references.length ? { populate: references.map((reference) => reference.relation) } : {}),
      }),
  });
  if (record.isLoading) return <p>Loading…</p>;
  if (record.error || !record.data) return <Failure error={record.error} />;
  const data = record.data;
  const label = recordLabel(info, data);
  const referenceOf = new Map(references.map((reference) => [reference.field, reference]));
  return (
    <>
      <h1>
        Record {label} <span className="muted">of {info.name}</span>
      </h1>
      <p>
        <a href={href({ ...place, record: undefined })}>← Records of {info.name}</a>
      </p>
      {data.is_deleted === true && (
        <p className="notice">This record is deleted (it can be restored from the grid).</p>
      )}
      <dl className="record">
        {info.schema.fields
          .filter((field) => field.type !== 'tsvector')
          .map((field) => {
            const reference = referenceOf.get(field.name);
            let shown: React.ReactNode = displayValue(data[field.name]);
            if (reference) {
              const target = tables.find((table) => table.name === reference.table);
              const key = referencedKey(data, reference, target);
              const embedded = referencedRecord(data, reference);
              shown = key ? (
                <a href={href({ ...place, table: reference.table, record: key, view: undefined })}>
                  {embedded ? recordLabel(target, embedded) : key}
                </a>
              ) : (
                ''
              );
            }
            return (
              <div key={field.name}>
                <dt>{field.name}</dt>
                <dd>{shown}</dd>
              </div>
            );
          })}
      </dl>
      {graphTypes(info).length > 0 && (
        <Relationships
          place={place}
          info={info}
          record={data}
          may={data.is_deleted === true ? { configure: false, change: false, delete: false } : may}
        />
      )}
    </>
  );
}
