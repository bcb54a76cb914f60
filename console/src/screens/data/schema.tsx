import { useState } from 'react';
import type { Place } from '../../place';
import { errorText } from '../../queries/client';
import { type FieldDef, list, type TableInfo, tableCalls, useRefresh } from '../../queries/tables';
import { AddField, AddIndex, DropTable } from './schema/changes';
import { RelationshipTypes } from './schema/relationships';

export function describeConstraints(field: FieldDef): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(field.constraints ?? {}))
    parts.push(value === true ? key : `${key}: ${JSON.stringify(value)}`);
  if (field.default !== undefined) parts.push(`default: ${JSON.stringify(field.default)}`);
  return parts.join(', ');
}

export const indexName = (index: { name?: string; fields: string[] }) =>
  index.name ?? `${index.fields.join('_')}_idx`;

export function SchemaView({
  place,
  info,
  canConfigure,
}: {
  place: Place;
  info: TableInfo;
  canConfigure: boolean;
}) {
  const schema = info.schema;
  const keys = list(schema.primaryKey);
  const calls = tableCalls(place, info.name);
  const refresh = useRefresh(place);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ what: string; message: string } | null>(null);
  const [notice, setNotice] = useState('');

  async function drop(what: string, remove: () => Promise<unknown>, done: string) {
    setFailure(null);
    try {
      await remove();
      await refresh();
      setNotice(done);
    } catch (error) {
      setFailure({ what, message: errorText(error).message });
    }
    setConfirming(null);
  }

  const confirmOrAsk = (
    what: string,
    label: string,
    confirmLabel: string,
    remove: () => Promise<unknown>,
    done: string,
  ) =>
    confirming === what ? (
      <>
        <button type="button" className="danger" onClick={() => drop(what, remove, done)}>
          {confirmLabel}
        </button>
        <button type="button" onClick={() => setConfirming(null)}>
          Keep it
        </button>
      </>
    ) : (
      <button type="button" onClick={() => setConfirming(what)}>
        {label}
      </button>
    );
  const failed = (what: string) =>
    failure?.what === what ? (
      <span className="field-error" role="alert">
        {failure.message}
      </span>
    ) : null;

  return (
    <section aria-labelledby="schema-title">
      <h2 id="schema-title">Schema</h2>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <div className="scroll">
        <table>
          <caption>Fields of {info.name}</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Type</th>
              <th scope="col">Constraints</th>
              {canConfigure && <th scope="col">Change</th>}
            </tr>
          </thead>
          <tbody>
            {schema.fields.map((field) => (
              <tr key={field.name}>
                <th scope="row">
                  {field.name}
                  {keys.includes(field.name) ? ' (key)' : ''}
                </th>
                <td>
                  {field.type}
                  {field.format ? ` (${field.format})` : ''}
                </td>
                <td>{describeConstraints(field)}</td>
                {canConfigure && (
                  <td className="actions">
                    {!keys.includes(field.name) &&
                      confirmOrAsk(
                        `field:${field.name}`,
                        `Drop field ${field.name}`,
                        `Confirm dropping field ${field.name} and its values`,
                        () => calls.dropField(field.name),
                        `Field ${field.name} dropped.`,
                      )}
                    {failed(`field:${field.name}`)}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {canConfigure && <AddField place={place} info={info} onDone={setNotice} />}
      <h3>Foreign keys</h3>
      {schema.foreignKeys?.length ? (
        <ul>
          {schema.foreignKeys.map((key) => (
            <li key={list(key.fields).join(',')}>
              {list(key.fields).join(', ')} → {key.reference.resource || info.name}.
              {list(key.reference.fields).join(', ')}
              {key['x-actions']?.onDelete ? ` (on delete ${key['x-actions'].onDelete})` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Unique keys and indexes</h3>
      {schema.uniqueKeys?.length || schema.indexes?.length ? (
        <ul className="schema-list">
          {(schema.uniqueKeys ?? []).map((key) => (
            <li key={`u-${list(key).join(',')}`}>unique ({list(key).join(', ')})</li>
          ))}
          {(schema.indexes ?? []).map((index) => {
            const name = indexName(index);
            return (
              <li key={`i-${name}`}>
                {index.unique ? 'unique ' : ''}index {name} ({index.fields.join(', ')}){' '}
                {canConfigure &&
                  confirmOrAsk(
                    `index:${name}`,
                    `Drop index ${name}`,
                    `Confirm dropping index ${name}`,
                    () => calls.dropIndex(name),
                    `Index ${name} dropped.`,
                  )}
                {failed(`index:${name}`)}
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      {canConfigure && <AddIndex place={place} info={info} onDone={setNotice} />}
      <RelationshipTypes place={place} info={info} canConfigure={canConfigure} />
      {canConfigure && <DropTable place={place} info={info} />}
    </section>
  );
}
