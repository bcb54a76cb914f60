import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { CheckField, SelectField, TextField } from '../../kit/fields';
import { Failure } from '../../kit/parts';
import { ReadOnly } from '../../kit/permissions';
import { href, type Place } from '../../place';
import { errorText } from '../../queries/client';
import type { Abilities } from '../../queries/organizations';
import { createTable, type NewTable, fieldTypes as types, useTables } from '../../queries/tables';

/** An app's tables and the form that creates one. */

export function Tables({ place, abilities }: { place: Place; abilities?: Abilities }) {
  const tables = useTables(place);
  return (
    <section>
      <h1>Tables of {place.app}</h1>
      {tables.isLoading && <p>Loading…</p>}
      {tables.error ? <Failure error={tables.error} /> : null}
      {tables.data && tables.data.data.length === 0 && <p>This app has no table yet.</p>}
      {tables.data && tables.data.data.length > 0 && (
        <ul className="picks">
          {tables.data.data.map((table) => (
            <li key={table.name}>
              <a href={href({ ...place, table: table.name, view: undefined })}>
                <strong>{table.name}</strong>{' '}
                <span className="muted">
                  {table.schema.fields.length} fields{table.description ? ` · ${table.description}` : ''}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {abilities?.can('configure') ? (
        <CreateTable place={place} tables={tables.data?.data.map((table) => table.name) ?? []} />
      ) : (
        <ReadOnly what="creating tables" action="configure" />
      )}
    </section>
  );
}

interface DraftField {
  name: string;
  type: string;
  required: boolean;
  references: string;
}

function CreateTable({ place, tables }: { place: Place; tables: string[] }) {
  const id = useId();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [fields, setFields] = useState<DraftField[]>([
    { name: '', type: 'string', required: false, references: '' },
  ]);
  const [relations, setRelations] = useState('');
  const [searchable, setSearchable] = useState('');
  const [softDelete, setSoftDelete] = useState(false);
  const [errors, setErrors] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [busy, setBusy] = useState(false);
  const change = (index: number, patch: Partial<DraftField>) =>
    setFields((current) => current.map((field, i) => (i === index ? { ...field, ...patch } : field)));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setErrors(null);
    const used = fields.filter((field) => field.name.trim());
    const schema: NewTable['schema'] = {
      fields: used.map((field) => ({
        name: field.name.trim(),
        ...(field.references ? { type: 'string', format: 'uuid' } : { type: field.type }),
        ...(field.required ? { constraints: { required: true } } : {}),
      })),
    };
    if (softDelete) schema.fields.push({ name: 'is_deleted', type: 'boolean' });
    const searchFields = searchable
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (searchFields.length)
      schema.fields.push({
        name: 'search_vector',
        type: 'tsvector',
        'x-search': { fields: searchFields },
      });
    const types = relations
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (types.length) schema.graph = { enabled: true, types: types.map((name) => ({ name })) };
    const keys = used.filter((field) => field.references);
    if (keys.length)
      schema.foreignKeys = keys.map((field) => ({
        fields: [field.name.trim()],
        reference: { resource: field.references, fields: ['id'] },
      }));
    try {
      await createTable(place, { name: name.trim(), schema });
      await queries.invalidateQueries({ queryKey: ['tables', place.site, place.app] });
      location.hash = href({ ...place, table: name.trim(), view: undefined });
    } catch (error) {
      setErrors(errorText(error));
    } finally {
      setBusy(false);
    }
  }
  const fieldError = (key: string) => errors?.fields[key]?.join(' ');
  const others = errors
    ? Object.entries(errors.fields).filter(
        ([key]) => key !== 'name' && !/^schema\.fields\.\d+\.(name|type)$/.test(key),
      )
    : [];
  return (
    <form className="card" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`}>Create a table</h2>
      {errors && (
        <div role="alert" className="error">
          {errors.message}
          {others.length > 0 && (
            <ul>
              {others.map(([key, messages]) => (
                <li key={key}>
                  {key}: {messages.join(' ')}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <TextField label="Table name" value={name} onChange={setName} error={fieldError('name')} required />
      <fieldset>
        <legend>Fields (an id, created_at and updated_at are added by the API)</legend>
        {fields.map((field, index) => (
          <div className="field-row" key={index}>
            <TextField
              label={`Field ${index + 1} name`}
              value={field.name}
              onChange={(value) => change(index, { name: value })}
              error={fieldError(`schema.fields.${index}.name`)}
            />
            <SelectField
              label={`Field ${index + 1} type`}
              value={field.references ? 'string' : field.type}
              options={types.map((type) => [type, type])}
              onChange={(value) => change(index, { type: value })}
              disabled={Boolean(field.references)}
              error={fieldError(`schema.fields.${index}.type`)}
            />
            <SelectField
              label={`Field ${index + 1} references`}
              value={field.references}
              options={[
                ['', '(nothing)'],
                ...tables.map((table): [string, string] => [table, `${table} (id)`]),
              ]}
              onChange={(value) => change(index, { references: value })}
            />
            <label className="check">
              <input
                type="checkbox"
                checked={field.required}
                onChange={(event) => change(index, { required: event.target.checked })}
              />{' '}
              Field {index + 1} required
            </label>
          </div>
        ))}
        <button
          type="button"
          onClick={() =>
            setFields((current) => [
              ...current,
              { name: '', type: 'string', required: false, references: '' },
            ])
          }
          disabled={fields.length >= 50}
        >
          Add a field
        </button>
      </fieldset>
      <TextField
        label="Full-text search on (comma-separated text fields, optional)"
        value={searchable}
        onChange={setSearchable}
        error={fieldError('schema.fields')}
      />
      <CheckField
        label="Soft delete (deleted records are kept, listed apart and can be restored)"
        checked={softDelete}
        onChange={setSoftDelete}
      />
      <TextField
        label="Relationship types (comma-separated, optional)"
        value={relations}
        onChange={setRelations}
        hint="Records of this table can then be linked to each other by these types (a graph)."
        error={fieldError('schema.graph')}
      />
      <button type="submit" className="primary" disabled={busy}>
        Create table
      </button>
    </form>
  );
}
