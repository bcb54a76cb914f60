import { type ChangeEvent, useId, useState } from 'react';

/** Form fields of the console: a label tied to every control, hints and errors through `aria-describedby`. */

export function focusFirstError(formId: string) {
  requestAnimationFrame(() => {
    const first = document.getElementById(formId)?.querySelector<HTMLElement>('[aria-invalid="true"]');
    first?.focus();
  });
}

/**
 * A refusal that clears as the field becomes valid: once the person edits the value it was given for, it gives
 * way to the browser's own check of the field (an e-mail field's "@"), and to nothing when that passes. A new
 * refusal (the form sent again) shows again.
 */
function useClearingError(error: string | undefined) {
  const [given, setGiven] = useState(error);
  const [edit, setEdit] = useState<{ message: string } | null>(null);
  if (given !== error) {
    setGiven(error);
    setEdit(null);
  }
  return {
    shown: edit ? edit.message || undefined : error,
    edited: (control: HTMLInputElement | HTMLTextAreaElement) => {
      if (error) setEdit({ message: control.validity.valid ? '' : control.validationMessage });
    },
  };
}

export function TextField({
  label,
  value,
  onChange,
  error,
  hint,
  required,
  multiline,
  inputType = 'text',
  inputMode,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  required?: boolean;
  multiline?: boolean;
  inputType?: string;
  inputMode?: 'numeric' | 'decimal';
}) {
  const id = useId();
  const { shown: fieldError, edited } = useClearingError(error);
  const change = (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    edited(event.target);
    onChange(event.target.value);
  };
  const described =
    [hint ? `${id}-hint` : '', fieldError ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    value,
    'aria-invalid': fieldError ? true : undefined,
    'aria-describedby': described,
    'aria-required': required || undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {multiline ? (
        <textarea {...common} rows={3} onChange={change} />
      ) : (
        <input {...common} type={inputType} inputMode={inputMode} onChange={change} />
      )}
      {fieldError && (
        <span className="field-error" id={`${id}-error`}>
          {fieldError}
        </span>
      )}
    </div>
  );
}

/** A choice among options (value, text); the value handed on is one of the options' own. */
export function SelectField<T extends string>({
  label,
  value,
  options,
  onChange,
  error,
  disabled,
}: {
  label: string;
  value: T;
  options: readonly (readonly [T, string])[];
  onChange: (value: T) => void;
  error?: string;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => {
          const chosen = options.find(([option]) => option === event.target.value);
          if (chosen) onChange(chosen[0]);
        }}
      >
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** A checkbox with its label. */
export function CheckField({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label className="check">
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} /> {label}
    </label>
  );
}

/** An API error's general message and the field messages no field of the form shows, above the form. */
export function ErrorSummary({
  error,
  shown = [],
}: {
  error: { message: string; fields: Record<string, string[]> } | null;
  shown?: string[];
}) {
  if (!error) return null;
  const others = Object.entries(error.fields).filter(([key]) => !shown.includes(key));
  return (
    <div role="alert" className="error">
      {error.message}
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
  );
}

/** Checkboxes in a fieldset: which of the items (value, label) are chosen. */
export function CheckList<T extends string>({
  legend,
  items,
  chosen,
  onChange,
}: {
  legend: string;
  items: readonly (readonly [T, string])[];
  chosen: readonly T[];
  onChange: (chosen: T[]) => void;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {items.map(([value, label]) => (
        <label className="check" key={value}>
          <input
            type="checkbox"
            checked={chosen.includes(value)}
            onChange={(event) =>
              onChange(
                event.target.checked
                  ? [...chosen.filter((item) => item !== value), value]
                  : chosen.filter((item) => item !== value),
              )
            }
          />{' '}
          {label}
        </label>
      ))}
    </fieldset>
  );
}
