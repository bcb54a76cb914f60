import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../../kit/fields';
import { answerOf, clientFor, errorText } from '../../queries/client';
import { useSecretTypes } from './model';

export function SetSecret({ site, app, existing }: { site: string; app: string; existing: string[] }) {
  const queries = useQueryClient();
  const types = useSecretTypes(site);
  const [type, setType] = useState('');
  const [key, setKey] = useState('');
  const [value, setValue] = useState('{}');
  const [tags, setTags] = useState('');
  const [error, setError] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [notice, setNotice] = useState('');
  const chosen = type || types.data?.items[0]?.slug || '';

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setNotice('');
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      setError({ message: 'Check the value.', fields: { value: ['Enter valid JSON (an object).'] } });
      return;
    }
    const body = {
      secret_type: chosen,
      // A request's JSON document as typed: the OpenAPI type of `value` (an object of any shape) reads as an
      // object without properties.
      value: parsed as Record<string, never>,
      tags: tags
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
    };
    try {
      // A new key is created (POST); an existing one is replaced (PUT: type, value and tags).
      if (existing.includes(key.trim()))
        await answerOf(
          clientFor(site).PUT('/api/secrets/{key}/', {
            params: { path: { key: key.trim() }, query: app ? { app } : undefined },
            body: body,
          }),
        );
      else
        await answerOf(
          clientFor(site).POST('/api/secrets/', { body: { ...body, key: key.trim(), app: app || null } }),
        );
      setNotice(`Secret ${key.trim()} set.`);
      setValue('{}');
      await queries.invalidateQueries({ queryKey: ['secrets', site] });
    } catch (failure) {
      setError(errorText(failure));
    }
  }
  const at = (field: string) => error?.fields[field]?.join(' ');
  const shown = new Set(['key', 'value', 'secret_type', 'tags']);
  // The type's schema names the failing field inside the value (`token`, `value.token`): shown at the value.
  const inValue = Object.entries(error?.fields ?? {})
    .filter(([field]) => !shown.has(field))
    .map(([field, messages]) => `${field.replace(/^value\./, '')}: ${messages.join(' ')}`);
  const valueError = [at('value'), ...inValue].filter(Boolean).join(' ') || undefined;
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="set-secret-title">
      <h2 id="set-secret-title">{app ? `Set a secret of the app ${app}` : 'Set a secret'}</h2>
      <p aria-live="polite" className="status">
        {notice}
      </p>
      {error && Object.keys(error.fields).length === 0 && (
        <div role="alert" className="error">
          {error.message}
        </div>
      )}
      <SelectField
        label="Secret type"
        value={chosen}
        options={(types.data?.items ?? []).map((item): [string, string] => [
          item.slug,
          `${item.name} (${item.sensitivity_level})`,
        ])}
        onChange={setType}
        error={at('secret_type')}
      />
      <TextField label="Key" value={key} onChange={setKey} error={at('key')} required />
      <TextField
        label="Value (JSON)"
        value={value}
        onChange={setValue}
        multiline
        error={valueError}
        hint="An object matching the type's schema. It is never shown again unless revealed."
      />
      <TextField label="Tags (comma-separated)" value={tags} onChange={setTags} error={at('tags')} />
      <button type="submit" className="primary">
        Set secret
      </button>
    </form>
  );
}
