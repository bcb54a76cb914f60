import { type FormEvent, useId, useState } from 'react';
import { CheckField, ErrorSummary, focusFirstError, SelectField, TextField } from '../../kit/fields';
import { href, type Place } from '../../place';
import { errorText } from '../../queries/client';
import {
  type FieldDef,
  fieldTypes,
  graphTypes,
  list,
  type RelationshipType,
  type TableInfo,
  tableCalls,
  useRefresh,
} from '../../queries/tables';

/**
 * A table's schema, and for who may configure the site its changes through the schema routes: add and drop a
 * field, add and drop an index, add and remove relationship types (PATCH of the graph), drop the table. The API's
 * messages are shown at the field they name.
 */

type Problem = { message: string; fields: Record<string, string[]> } | null;

function describeConstraints(field: FieldDef): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(field.constraints ?? {}))
    parts.push(value === true ? key : `${key}: ${JSON.stringify(value)}`);
  if (field.default !== undefined) parts.push(`default: ${JSON.stringify(field.default)}`);
  return parts.join(', ');
}

const indexName = (index: { name?: string; fields: string[] }) =>
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

function AddField({
  place,
  info,
  onDone,
}: {
  place: Place;
  info: TableInfo;
  onDone: (notice: string) => void;
}) {
  const id = useId();
  const refresh = useRefresh(place);
  const [name, setName] = useState('');
  const [type, setType] = useState('string');
  const [required, setRequired] = useState(false);
  const [unique, setUnique] = useState(false);
  const [problem, setProblem] = useState<Problem>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    const constraints = { ...(required ? { required: true } : {}), ...(unique ? { unique: true } : {}) };
    try {
      await tableCalls(place, info.name).addField({
        name: name.trim(),
        type,
        ...(Object.keys(constraints).length ? { constraints } : {}),
      });
      await refresh();
      onDone(`Field ${name.trim()} added.`);
      setName('');
    } catch (error) {
      setProblem(errorText(error));
      focusFirstError(id);
    } finally {
      setBusy(false);
    }
  }
  const at = (key: string) => problem?.fields[key]?.join(' ');
  return (
    <form className="panel" id={id} onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>Add a field to {info.name}</h3>
      <ErrorSummary error={problem} shown={['name', 'type']} />
      <div className="field-row">
        <TextField label="New field's name" value={name} onChange={setName} error={at('name')} required />
        <SelectField
          label="New field's type"
          value={type}
          options={fieldTypes.map((item): [string, string] => [item, item])}
          onChange={setType}
          error={at('type')}
        />
        <CheckField label="Required" checked={required} onChange={setRequired} />
        <CheckField label="Unique" checked={unique} onChange={setUnique} />
        <button type="submit" disabled={busy}>
          Add field
        </button>
      </div>
    </form>
  );
}

function AddIndex({
  place,
  info,
  onDone,
}: {
  place: Place;
  info: TableInfo;
  onDone: (notice: string) => void;
}) {
  const id = useId();
  const refresh = useRefresh(place);
  const [fields, setFields] = useState('');
  const [name, setName] = useState('');
  const [unique, setUnique] = useState(false);
  const [problem, setProblem] = useState<Problem>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    const names = fields
      .split(',')
      .map((field) => field.trim())
      .filter(Boolean);
    try {
      await tableCalls(place, info.name).addIndex({
        fields: names,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(unique ? { unique: true } : {}),
      });
      await refresh();
      onDone(`Index on ${names.join(', ')} added.`);
      setFields('');
      setName('');
    } catch (error) {
      setProblem(errorText(error));
      focusFirstError(id);
    } finally {
      setBusy(false);
    }
  }
  const at = (key: string) => problem?.fields[key]?.join(' ');
  return (
    <form className="panel" id={id} onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>Add an index</h3>
      <ErrorSummary error={problem} shown={['fields', 'name']} />
      <div className="field-row">
        <TextField
          label="Index fields (comma-separated)"
          value={fields}
          onChange={setFields}
          error={at('fields')}
          required
        />
        <TextField label="Index name (optional)" value={name} onChange={setName} error={at('name')} />
        <CheckField label="Unique index" checked={unique} onChange={setUnique} />
        <button type="submit" disabled={busy}>
          Add index
        </button>
      </div>
    </form>
  );
}

function RelationshipTypes({
  place,
  info,
  canConfigure,
}: {
  place: Place;
  info: TableInfo;
  canConfigure: boolean;
}) {
  const id = useId();
  const refresh = useRefresh(place);
  const types = graphTypes(info);
  const [name, setName] = useState('');
  const [inverse, setInverse] = useState('');
  const [tree, setTree] = useState(false);
  const [problem, setProblem] = useState<Problem>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  async function change(next: RelationshipType[], done: string): Promise<boolean> {
    setBusy(true);
    setProblem(null);
    try {
      await tableCalls(place, info.name).setGraph({ enabled: next.length > 0, types: next });
      await refresh();
      setNotice(done);
      return true;
    } catch (error) {
      setProblem(errorText(error));
      focusFirstError(id);
      return false;
    } finally {
      setBusy(false);
      setRemoving(null);
    }
  }
  async function add(event: FormEvent) {
    event.preventDefault();
    const type: RelationshipType = {
      name: name.trim(),
      ...(inverse.trim() ? { inverse: inverse.trim() } : {}),
      ...(tree ? { constraints: { max_outgoing: 1 } } : {}),
    };
    if (await change([...types, type], `Relationship type ${type.name} added.`)) {
      setName('');
      setInverse('');
      setTree(false);
    }
  }
  // The API names the position of the type in the request: the new one is last.
  const at = (part: 'name' | 'inverse') =>
    Object.entries(problem?.fields ?? {})
      .filter(([key]) => key.endsWith(`graph.types.${types.length}.${part}`))
      .flatMap(([, messages]) => messages)
      .join(' ') || undefined;
  const shown = Object.keys(problem?.fields ?? {}).filter((key) =>
    new RegExp(`graph\\.types\\.${types.length}\\.(name|inverse)$`).test(key),
  );

  return (
    <>
      <h3>Relationship types</h3>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {types.length ? (
        <ul className="schema-list">
          {types.map((type) => (
            <li key={type.name}>
              {type.name}
              {` (inverse ${type.inverse ?? `${type.name}_inverse`})`}
              {type.constraints?.max_outgoing === 1 ? ', one parent at most' : ''}{' '}
              {canConfigure &&
                (removing === type.name ? (
                  <>
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() =>
                        change(
                          types.filter((other) => other.name !== type.name),
                          `Relationship type ${type.name} removed.`,
                        )
                      }
                    >
                      Confirm removing type {type.name}
                    </button>
                    <button type="button" onClick={() => setRemoving(null)}>
                      Keep it
                    </button>
                  </>
                ) : (
                  <button type="button" onClick={() => setRemoving(type.name)}>
                    Remove type {type.name}
                  </button>
                ))}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{info.schema.hierarchy ? 'A hierarchy (parent and children).' : 'None.'}</p>
      )}
      {canConfigure && (
        <form className="panel" id={id} onSubmit={add} aria-labelledby={`${id}-title`} noValidate>
          <h4 id={`${id}-title`}>Add a relationship type</h4>
          <ErrorSummary error={problem} shown={shown} />
          <div className="field-row">
            <TextField label="Type name" value={name} onChange={setName} error={at('name')} required />
            <TextField
              label="Inverse name (optional)"
              value={inverse}
              onChange={setInverse}
              error={at('inverse')}
              hint="The name of the other direction: manager → direct_reports."
            />
            <CheckField label="One parent at most (a tree)" checked={tree} onChange={setTree} />
            <button type="submit" disabled={busy}>
              Add relationship type
            </button>
          </div>
        </form>
      )}
    </>
  );
}

function DropTable({ place, info }: { place: Place; info: TableInfo }) {
  const refresh = useRefresh(place);
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<Problem>(null);
  async function drop() {
    setProblem(null);
    try {
      await tableCalls(place, info.name).drop();
      await refresh();
      location.hash = href({ org: place.org, site: place.site, app: place.app });
    } catch (error) {
      setProblem(errorText(error));
    }
  }
  return (
    <div className="panel danger-zone">
      <h3>Drop the table</h3>
      {!asking ? (
        <button type="button" className="danger" onClick={() => setAsking(true)}>
          Drop table {info.name}…
        </button>
      ) : (
        <>
          <p>This removes the table, all its records and its relationships. It cannot be undone.</p>
          <ErrorSummary error={problem} />
          <TextField label={`Type ${info.name} to confirm`} value={typed} onChange={setTyped} />
          <div className="toolbar">
            <button type="button" className="danger" disabled={typed !== info.name} onClick={drop}>
              Drop table {info.name} and its records
            </button>
            <button
              type="button"
              onClick={() => {
                setAsking(false);
                setTyped('');
                setProblem(null);
              }}
            >
              Keep the table
            </button>
          </div>
        </>
      )}
    </div>
  );
}
