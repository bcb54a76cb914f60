import { type FormEvent, useId, useState } from 'react';
import { CheckField, ErrorSummary, focusFirstError, SelectField, TextField } from '../../../kit/fields';
import { href, type Place } from '../../../place';
import { errorText } from '../../../queries/client';
import { fieldTypes, type TableInfo, tableCalls, useRefresh } from '../../../queries/tables';

/**
 * A table's schema, and for who may configure the site its changes through the schema routes: add and drop a
 * field, add and drop an index, add and remove relationship types (PATCH of the graph), drop the table. The API's
 * messages are shown at the field they name.
 */
export type Problem = { message: string; fields: Record<string, string[]> } | null;

export function AddField({
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

export function AddIndex({
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

export function DropTable({ place, info }: { place: Place; info: TableInfo }) {
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
