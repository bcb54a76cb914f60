import { useUpdate } from '@refinedev/core';
import { type FormEvent, useId, useState } from 'react';
import type { Place } from '../../../place';
import { errorText } from '../../../queries/client';
import { type AnyRecord, type FieldDef, jsonTypes, readOnly } from '../../../queries/tables';
import { fromText, toText } from '../record-values';

/** The fields a cell edits in place: plain values the person sets (not the key, not JSON, not set by the API). */
export function editsInPlace(field: FieldDef, key: string): boolean {
  return field.name !== key && !readOnly.has(field.name) && !jsonTypes.has(field.type);
}

/**
 * A cell that edits in place: "Edit" opens a field in the cell, Enter or "Save" sends only that field (refine's
 * useUpdate, `PATCH …/data/{id}/`), Escape or "Cancel" closes it; the API's refusal is shown in the cell, at the
 * field, and what was typed is kept.
 */
export function EditableCell(props: {
  place: Place;
  table: string;
  field: FieldDef;
  record: AnyRecord;
  id: string;
  label: string;
  onSaved: (notice: string) => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const shown = toText(props.field, props.record[props.field.name]);
  const name = `${props.field.name} of ${props.label}`;
  if (!open)
    return (
      <span className="cell-edit">
        <span>{shown}</span>
        <button type="button" className="link" onClick={() => setOpen(true)} aria-label={`Edit ${name}`}>
          Edit
        </button>
      </span>
    );
  return <CellForm {...props} name={name} initial={shown} onClose={() => setOpen(false)} />;
}

/** The open cell: its field, Save and Cancel, and the refusal at the field. */
function CellForm({
  place,
  table,
  field,
  id,
  name,
  initial,
  onSaved,
  onClose,
}: {
  place: Place;
  table: string;
  field: FieldDef;
  id: string;
  name: string;
  initial: string;
  onSaved: (notice: string) => Promise<void>;
  onClose: () => void;
}) {
  const inputId = useId();
  const update = useUpdate();
  const [text, setText] = useState(initial);
  const [error, setError] = useState('');
  async function save(event: FormEvent) {
    event.preventDefault();
    const parsed = fromText(field, text);
    if (parsed.error) return setError(parsed.error);
    try {
      await update.mutateAsync({
        resource: table,
        id,
        values: { [field.name]: parsed.value },
        meta: { app: place.app },
        successNotification: false,
        errorNotification: false,
      });
      onClose();
      await onSaved(`${name} saved.`);
    } catch (failure) {
      const problem = errorText(failure);
      setError(problem.fields[field.name]?.join(' ') ?? problem.message);
    }
  }
  return (
    <form className="cell-edit" onSubmit={save} aria-label={`Edit ${name}`}>
      <input
        id={inputId}
        aria-label={name}
        value={text}
        // biome-ignore lint/a11y/noAutofocus: the person asked to edit this cell: the field takes the focus.
        autoFocus
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${inputId}-error` : undefined}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onClose();
        }}
      />
      <button type="submit" disabled={update.mutation.isPending}>
        Save
      </button>
      <button type="button" onClick={onClose}>
        Cancel
      </button>
      {error && (
        <span className="field-error" id={`${inputId}-error`}>
          {error}
        </span>
      )}
    </form>
  );
}
