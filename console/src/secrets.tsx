import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorText, get, send } from './api';
import { SelectField, TextField } from './data';
import { type Abilities, Failure } from './shell';

/**
 * A site's secrets: keys, types and tags; a value is shown only when revealed (a read of that one secret), the
 * history without values, and a form that sets a secret of a type (for who may change the site).
 */

interface Secret {
  key: string;
  tags: string[];
  secret_type: string;
}
interface SecretType {
  name: string;
  slug: string;
  sensitivity_level: string;
}
interface HistoryEntry {
  action: '+' | '~' | '-';
  user: string;
  timestamp: string;
  secret_type: string;
  tags: string[];
  changes: Record<string, unknown>;
}
const actions = { '+': 'created', '~': 'changed', '-': 'deleted' } as const;

export function SecretsScreen({ site, abilities }: { site: string; abilities?: Abilities }) {
  const secrets = useQuery({
    queryKey: ['secrets', site],
    queryFn: () => get<{ items: Secret[] }>('/api/secrets/', site, { page_size: '100' }),
  });
  const [revealed, setRevealed] = useState<Record<string, string>>({});
  const [history, setHistory] = useState<{ key: string; entries: HistoryEntry[] } | null>(null);

  async function reveal(key: string) {
    try {
      const answer = await get<Record<string, unknown>>(`/api/secrets/${encodeURIComponent(key)}/`, site);
      setRevealed((current) => ({ ...current, [key]: JSON.stringify(answer.value, null, 2) }));
    } catch (error) {
      setRevealed((current) => ({ ...current, [key]: `Not shown: ${errorText(error).message}` }));
    }
  }

  async function showHistory(key: string) {
    const answer = await get<{ results: HistoryEntry[] }>(
      `/api/secrets/${encodeURIComponent(key)}/history/`,
      site,
      { limit: '50' },
    );
    setHistory({ key, entries: answer.results });
  }

  return (
    <section>
      <h1>Secrets</h1>
      {secrets.isLoading && <p>Loading…</p>}
      {secrets.error ? <Failure error={secrets.error} /> : null}
      {secrets.data && secrets.data.items.length === 0 && <p>This site has no secret yet.</p>}
      {secrets.data && secrets.data.items.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Secrets of the site</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Type</th>
                <th scope="col">Tags</th>
                <th scope="col">Value</th>
                <th scope="col">History</th>
              </tr>
            </thead>
            <tbody>
              {secrets.data.items.map((secret) => (
                <tr key={secret.key}>
                  <th scope="row">{secret.key}</th>
                  <td>{secret.secret_type}</td>
                  <td>{secret.tags.join(', ')}</td>
                  <td>
                    {revealed[secret.key] !== undefined ? (
                      <>
                        <pre>{revealed[secret.key]}</pre>
                        <button
                          type="button"
                          onClick={() =>
                            setRevealed((current) => {
                              const { [secret.key]: _, ...rest } = current;
                              return rest;
                            })
                          }
                          aria-label={`Hide the value of ${secret.key}`}
                        >
                          Hide
                        </button>
                      </>
                    ) : (
                      <button
                        type="button"
                        onClick={() => reveal(secret.key)}
                        aria-label={`Reveal the value of ${secret.key}`}
                      >
                        Reveal
                      </button>
                    )}
                  </td>
                  <td>
                    <button
                      type="button"
                      onClick={() => showHistory(secret.key)}
                      aria-label={`History of ${secret.key}`}
                    >
                      History
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {history && (
        <section aria-labelledby="history-title" className="card">
          <h2 id="history-title">History of {history.key}</h2>
          <p className="muted">Who changed what, when: values are never shown here.</p>
          <ol>
            {history.entries.map((entry) => (
              <li key={`${entry.timestamp}-${entry.action}`}>
                {new Date(entry.timestamp).toLocaleString()}: {actions[entry.action]} by {entry.user} (type{' '}
                {entry.secret_type}
                {entry.tags.length ? `, tags ${entry.tags.join(', ')}` : ''})
                {Object.keys(entry.changes).length
                  ? `; changed: ${Object.keys(entry.changes).join(', ')}`
                  : ''}
              </li>
            ))}
          </ol>
        </section>
      )}
      {abilities?.siteWrite ? (
        <SetSecret site={site} existing={secrets.data?.items.map((secret) => secret.key) ?? []} />
      ) : (
        <p className="muted">Setting secrets needs the site's change permission.</p>
      )}
    </section>
  );
}

function SetSecret({ site, existing }: { site: string; existing: string[] }) {
  const queries = useQueryClient();
  const types = useQuery({
    queryKey: ['secret-types', site],
    queryFn: () => get<{ items: SecretType[] }>('/api/secret-types/', site, { page_size: '100' }),
  });
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
      value: parsed,
      tags: tags
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
    };
    try {
      // A new key is created (POST); an existing one is replaced (PUT: type, value and tags).
      if (existing.includes(key.trim()))
        await send('PUT', `/api/secrets/${encodeURIComponent(key.trim())}/`, body, site);
      else await send('POST', '/api/secrets/', { ...body, key: key.trim() }, site);
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
      <h2 id="set-secret-title">Set a secret</h2>
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
