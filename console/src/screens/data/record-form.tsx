import { useCreate, useUpdate } from '@refinedev/core';
import { type FormEvent, useId, useState } from 'react';
import { focusFirstError, SelectField, TextField } from '../../kit/fields';
import type { Place } from '../../place';
import { errorText } from '../../queries/client';
import { type AnyRecord, type FieldDef, jsonTypes, readOnly, type TableInfo } from '../../queries/tables';
import { fromText, toText } from './record-values';

/** Create and edit a record through a form generated from the schema (refine's useCreate and useUpdate). */

export function RecordForm({
  place,
  info,
  fields,
  record,
  recordKey,
  onDone,
}: {
  place: Place;
  info: TableInfo;
  fields: FieldDef[];
  record?: AnyRecord;
  recordKey: string;
  onDone: (message?: string) => void;
}) {
  const id = useId();
  const editable = fields.filter(
    (field) =>
      !readOnly.has(field.name) && !(field.name === recordKey && !record) && field.name !== recordKey,
  );
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(editable.map((field) => [field.name, toText(field, record?.[field.name])])),
  );
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState('');
  const create = useCreate();
  const update = useUpdate();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body: AnyRecord = {};
    const local: Record<string, string[]> = {};
    for (const field of editable) {
      const text = values[field.name] ?? '';
      if (record && text === toText(field, record[field.name])) continue;
      if (!record && text === '') continue;
      const parsed = fromText(field, text);
      if (parsed.error) local[field.name] = [parsed.error];
      else body[field.name] = parsed.value;
    }
    setErrors(local);
    setMessage('');
    if (Object.keys(local).length) return focusFirstError(id);
    try {
      if (record)
        await update.mutateAsync({
          resource: info.name,
          id: String(record[recordKey]),
          values: body,
          meta: { app: place.app },
          successNotification: false,
          errorNotification: false,
        });
      else
        await create.mutateAsync({
          resource: info.name,
          values: body,
          meta: { app: place.app },
          successNotification: false,
          errorNotification: false,
        });
      onDone(record ? 'Record saved.' : 'Record created.');
    } catch (error) {
      const { message: text, fields: byField } = errorText(error);
      setErrors(byField);
      setMessage(text);
      focusFirstError(id);
    }
  }

  const shown = new Set(editable.map((field) => field.name));
  const elsewhere = Object.entries(errors).filter(([name]) => !shown.has(name));
  return (
    <form className="card" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate id={id}>
      <h3 id={`${id}-title`}>{record ? `Edit record ${String(record[recordKey])}` : 'New record'}</h3>
      {message && (
        <div role="alert" className="error">
          {message}
          {elsewhere.length > 0 && (
            <ul>
              {elsewhere.map(([name, messages]) => (
                <li key={name}>
                  {name}: {messages.join(' ')}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {editable.map((field) => {
        const error = errors[field.name]?.join(' ');
        const label = `${field.name}${field.constraints?.required ? ' (required)' : ''}`;
        const set = (value: string) => setValues((current) => ({ ...current, [field.name]: value }));
        if (field.constraints?.enum)
          return (
            <SelectField
              key={field.name}
              label={label}
              value={values[field.name] ?? ''}
              options={[
                ['', '(empty)'],
                ...field.constraints.enum.map((option): [string, string] => [String(option), String(option)]),
              ]}
              onChange={set}
              error={error}
            />
          );
        if (field.type === 'boolean')
          return (
            <SelectField
              key={field.name}
              label={label}
              value={values[field.name] ?? ''}
              options={[
                ['', '(empty)'],
                ['true', 'true'],
                ['false', 'false'],
              ]}
              onChange={set}
              error={error}
            />
          );
        return (
          <TextField
            key={field.name}
            label={label}
            value={values[field.name] ?? ''}
            onChange={set}
            error={error}
            multiline={jsonTypes.has(field.type)}
            inputType={field.type === 'date' ? 'date' : field.type === 'time' ? 'time' : 'text'}
            inputMode={field.type === 'integer' ? 'numeric' : field.type === 'number' ? 'decimal' : undefined}
            hint={field.type === 'datetime' ? 'RFC 3339 with a zone, e.g. 2026-01-31T12:00:00Z' : undefined}
          />
        );
      })}
      <div className="toolbar">
        <button
          type="submit"
          className="primary"
          disabled={create.mutation.isPending || update.mutation.isPending}
        >
          {record ? 'Save' : 'Create'}
        </button>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
