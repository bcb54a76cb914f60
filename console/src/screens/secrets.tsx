import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, toggle, useAction, useApps } from '../kit/parts';
import { answerOf, clientFor, errorText } from '../queries/client';
import type { Abilities } from '../queries/organizations';

/**
 * A site's secrets: keys, types and tags; a value is shown only when revealed (a read of that one secret), the
 * history without values (paged), a form that sets a secret of a type (for who may change the site), a secret's
 * tags, deleting a secret, and the site's secret types and tags.
 */

interface Secret {
  key: string;
  tags: string[];
  secret_type: string;
  value: unknown;
}
type Sensitivity = 'public' | 'private' | 'sensitive';
interface SecretType {
  name: string;
  slug: string;
  type: string;
  description?: string;
  sensitivity_level: Sensitivity;
  schema?: unknown;
}
interface Tag {
  name: string;
  slug: string;
  description?: string;
  color: string;
}
/** History entries a page. */
const historyPage = 50;
interface HistoryEntry {
  action: '+' | '~' | '-';
  user: string;
  timestamp: string;
  secret_type: string;
  tags: string[];
  changes: Record<string, unknown>;
}
const actions = { '+': 'created', '~': 'changed', '-': 'deleted' } as const;

/**
 * The secrets of one level: an app's (`app` filter), or the site's. The API's list without `app` holds both levels
 * without saying which, so the site level is that list less each app's secrets.
 */
function useSecrets(site: string, app: string, apps: string[]) {
  return useQuery({
    queryKey: ['secrets', site, app, apps],
    queryFn: async () => {
      const list = (level?: string) =>
        answerOf(
          clientFor(site).GET('/api/secrets/', {
            params: {
              query: {
                page_size: 100,
                ...(level ? { app: level } : {}),
              },
            },
          }),
        ).then((answer) => answer.items);
      if (app) return { items: await list(app) };
      const [all, ...perApp] = await Promise.all([list(), ...apps.map(list)]);
      const same = (secret: Secret) =>
        JSON.stringify([secret.key, secret.secret_type, secret.tags, secret.value]);
      const atApps = perApp.flat().map(same);
      return {
        items: (all ?? []).filter((secret) => {
          const at = atApps.indexOf(same(secret));
          if (at >= 0) atApps.splice(at, 1);
          return at < 0;
        }),
      };
    },
  });
}

export function SecretsScreen({ site, abilities }: { site: string; abilities?: Abilities }) {
  const apps = useApps(site);
  const appSlugs = (apps.data?.results ?? []).map((item) => item.slug);
  // '' is the site level; an app's slug its level (a read there falls back to the site level, as the API does).
  const [app, setApp] = useState('');
  const level = app ? { app } : undefined;
  const secrets = useSecrets(site, app, appSlugs);
  const [revealed, setRevealed] = useState<Record<string, string>>({});
  const [history, setHistory] = useState<{
    key: string;
    entries: HistoryEntry[];
    offset: number;
    total: number;
    hasNext: boolean;
  } | null>(null);
  const [tagging, setTagging] = useState<string | null>(null);
  const queries = useQueryClient();
  const action = useAction();
  const can = (what: 'change' | 'delete' | 'configure') => abilities?.can(what) ?? false;

  async function reveal(key: string) {
    try {
      const answer = await answerOf(
        clientFor(site).GET('/api/secrets/{key}/', { params: { path: { key }, query: level } }),
      );
      setRevealed((current) => ({ ...current, [key]: JSON.stringify(answer.value, null, 2) }));
    } catch (error) {
      setRevealed((current) => ({ ...current, [key]: `Not shown: ${errorText(error).message}` }));
    }
  }

  async function showHistory(key: string, offset = 0) {
    const answer = await answerOf(
      clientFor(site).GET('/api/secrets/{key}/history/', {
        params: { path: { key }, query: { limit: historyPage, offset, ...level } },
      }),
    );
    setHistory({ key, entries: answer.results, offset, total: answer.total_count, hasNext: answer.has_next });
  }

  async function remove(key: string) {
    await action.run(async () => {
      await answerOf(
        clientFor(site).DELETE('/api/secrets/{key}/', { params: { path: { key }, query: level } }),
      );
      await queries.invalidateQueries({ queryKey: ['secrets', site] });
      if (history?.key === key) setHistory(null);
      return `Secret ${key} deleted.`;
    });
  }

  return (
    <section>
      <h1>Secrets</h1>
      {appSlugs.length > 0 && (
        <SelectField
          label="Level"
          value={app}
          options={[
            ['', 'Site (shared by every app)'],
            ...(apps.data?.results ?? []).map((item): [string, string] => [item.slug, `App ${item.name}`]),
          ]}
          onChange={(value) => {
            setApp(value);
            setRevealed({});
            setHistory(null);
            setTagging(null);
          }}
        />
      )}
      {app && <p className="muted">The app reads its own secret of a key first, else the site's.</p>}
      {app && <LookUp site={site} app={app} own={secrets.data?.items.map((secret) => secret.key) ?? []} />}
      <Notice text={action.notice} />
      <FormError error={action.error} />
      {secrets.isLoading && <p>Loading…</p>}
      {secrets.error ? <Failure error={secrets.error} /> : null}
      {secrets.data && secrets.data.items.length === 0 && (
        <p>{app ? `The app ${app} has no secret of its own.` : 'This site has no secret yet.'}</p>
      )}
      {secrets.data && secrets.data.items.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">{app ? `Secrets of the app ${app}` : 'Secrets of the site'}</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Type</th>
                <th scope="col">Tags</th>
                <th scope="col">Value</th>
                <th scope="col">Actions</th>
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
                  <td className="actions">
                    <button
                      type="button"
                      onClick={() => showHistory(secret.key)}
                      aria-label={`History of ${secret.key}`}
                    >
                      History
                    </button>
                    {can('change') && (
                      <button
                        type="button"
                        onClick={() => setTagging(secret.key)}
                        aria-label={`Tags of ${secret.key}`}
                      >
                        Tags
                      </button>
                    )}
                    {can('delete') && (
                      <ConfirmButton
                        label="Delete"
                        what={`secret ${secret.key}`}
                        onConfirm={() => remove(secret.key)}
                      />
                    )}
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
          <p className="status" aria-live="polite">
            {history.total === 0
              ? 'No entry.'
              : `Entries ${history.offset + 1}–${history.offset + history.entries.length} of ${history.total}, newest first.`}
          </p>
          <ol start={history.offset + 1}>
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
          <div className="pager">
            <button
              type="button"
              disabled={history.offset === 0}
              onClick={() => showHistory(history.key, Math.max(0, history.offset - historyPage))}
            >
              Newer entries
            </button>
            <button
              type="button"
              disabled={!history.hasNext}
              onClick={() => showHistory(history.key, history.offset + historyPage)}
            >
              Older entries
            </button>
          </div>
        </section>
      )}
      {tagging && can('change') && (
        <SecretTags site={site} level={level} secretKey={tagging} done={() => setTagging(null)} />
      )}
      {can('change') ? (
        <SetSecret site={site} app={app} existing={secrets.data?.items.map((secret) => secret.key) ?? []} />
      ) : (
        <p className="muted">Setting secrets needs the site's change permission.</p>
      )}
      <SecretTypes site={site} configure={can('configure')} />
      <Tags site={site} configure={can('configure')} />
    </section>
  );
}

/** What the app reads for a key: its own secret, else the site's (the API's lookup), and from which level. */
function LookUp({ site, app, own }: { site: string; app: string; own: string[] }) {
  const [key, setKey] = useState('');
  const [found, setFound] = useState('');
  const action = useAction();
  async function look(event: FormEvent) {
    event.preventDefault();
    await action.run(async () => {
      const answer = await answerOf(
        clientFor(site).GET('/api/secrets/{key}/', {
          params: {
            path: { key: key.trim() },
            query: {
              app,
            },
          },
        }),
      );
      setFound(
        `${key.trim()} (${own.includes(key.trim()) ? `the app's own` : "the site's"}): ${JSON.stringify(answer.value)}`,
      );
      return undefined;
    });
  }
  return (
    <form className="card inline" onSubmit={look} noValidate aria-label={`What the app ${app} reads`}>
      <TextField
        label={`Key the app ${app} reads`}
        value={key}
        onChange={(value) => {
          setKey(value);
          setFound('');
        }}
        error={action.error?.message}
      />
      <button type="submit" disabled={action.busy || !key.trim()}>
        Look up
      </button>
      {found && <pre aria-live="polite">{found}</pre>}
    </form>
  );
}

function useTags(site: string) {
  return useQuery({ queryKey: ['tags', site], queryFn: () => answerOf(clientFor(site).GET('/api/tags/')) });
}
function useSecretTypes(site: string) {
  return useQuery({
    queryKey: ['secret-types', site],
    queryFn: () =>
      answerOf(clientFor(site).GET('/api/secret-types/', { params: { query: { page_size: 100 } } })),
  });
}

/**
 * A secret's tags. The API replaces a secret whole (type, value, tags), so saving reads the secret once and
 * writes it back with the new tags: the value goes from the API to the API and is never shown.
 */
function SecretTags({
  site,
  level,
  secretKey,
  done,
}: {
  site: string;
  level?: { app: string };
  secretKey: string;
  done: () => void;
}) {
  const queries = useQueryClient();
  const tags = useTags(site);
  const types = useSecretTypes(site);
  const read = () =>
    answerOf(
      clientFor(site).GET('/api/secrets/{key}/', { params: { path: { key: secretKey }, query: level } }),
    );
  const current = useQuery({ queryKey: ['secret-tags', site, level?.app, secretKey], queryFn: read });
  const [chosen, setChosen] = useState<string[] | null>(null);
  const action = useAction();
  const selected = chosen ?? current.data?.tags ?? [];
  async function save(event: FormEvent) {
    event.preventDefault();
    const ok = await action.run(async () => {
      const secret = await read();
      // The answer names the type; a write names its slug.
      const type =
        types.data?.items.find((item) => item.name === secret.secret_type)?.slug ?? secret.secret_type;
      await answerOf(
        clientFor(site).PUT('/api/secrets/{key}/', {
          params: { path: { key: secretKey }, query: level },
          body: { secret_type: type, value: secret.value, tags: selected },
        }),
      );
      await queries.invalidateQueries({ queryKey: ['secrets', site] });
      await queries.invalidateQueries({ queryKey: ['secret-tags', site] });
      return undefined;
    });
    if (ok) done();
  }
  const list = tags.data ?? [];
  return (
    <form className="card" onSubmit={save} noValidate aria-labelledby="secret-tags-title">
      <h2 id="secret-tags-title">Tags of {secretKey}</h2>
      <FormError error={action.error} />
      {list.length === 0 && <p>This site has no tag yet: create one below.</p>}
      {list.length > 0 && (
        <fieldset>
          <legend>Tags</legend>
          {list.map((tag) => (
            <label className="check" key={tag.slug}>
              <input
                type="checkbox"
                checked={selected.includes(tag.name)}
                onChange={(event) => setChosen(toggle(selected, tag.name, event.target.checked))}
              />{' '}
              {tag.name}
            </label>
          ))}
        </fieldset>
      )}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={action.busy || !current.data}>
          Save tags
        </button>
        <button type="button" onClick={done}>
          Close
        </button>
      </div>
    </form>
  );
}

/** The site's secret types: their sensitivity and schema; a new one (who may configure the site). */
function SecretTypes({ site, configure }: { site: string; configure: boolean }) {
  const queries = useQueryClient();
  const types = useSecretTypes(site);
  const action = useAction();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [sensitivity, setSensitivity] = useState<Sensitivity>('private');
  const [schema, setSchema] = useState('{"type": "object", "properties": {}, "required": []}');
  let schemaProblem: string | undefined;
  try {
    JSON.parse(schema);
  } catch {
    schemaProblem = 'Enter valid JSON (a JSON Schema object).';
  }
  // The type being edited (its slug), or '' for a new one.
  const [editing, setEditing] = useState('');
  const blank = '{"type": "object", "properties": {}, "required": []}';
  function edit(type: SecretType) {
    setEditing(type.slug);
    setName(type.name);
    setDescription(type.description ?? '');
    setSchema(JSON.stringify(type.schema ?? {}, null, 2));
    action.setNotice('');
  }
  function reset() {
    setEditing('');
    setName('');
    setDescription('');
    setSchema(blank);
  }
  async function create(event: FormEvent) {
    event.preventDefault();
    if (schemaProblem) return;
    const ok = await action.run(async () => {
      const fields = { name: name.trim(), description, schema: JSON.parse(schema) };
      if (editing)
        await answerOf(
          clientFor(site).PUT('/api/secret-types/{slug}/', {
            params: { path: { slug: editing } },
            body: fields,
          }),
        );
      else
        await answerOf(
          clientFor(site).POST('/api/secret-types/', { body: { ...fields, sensitivity_level: sensitivity } }),
        );
      await queries.invalidateQueries({ queryKey: ['secret-types', site] });
      await queries.invalidateQueries({ queryKey: ['secrets', site] });
      return `Secret type ${name.trim()} ${editing ? 'saved' : 'created'}.`;
    });
    if (ok) reset();
  }
  async function remove(type: SecretType) {
    await action.run(async () => {
      await answerOf(
        clientFor(site).DELETE('/api/secret-types/{slug}/', { params: { path: { slug: type.slug } } }),
      );
      await queries.invalidateQueries({ queryKey: ['secret-types', site] });
      if (editing === type.slug) reset();
      return `Secret type ${type.name} deleted.`;
    });
  }
  const list = types.data?.items ?? [];
  return (
    <section aria-labelledby="types-title">
      <h2 id="types-title">Types of secrets</h2>
      <Notice text={action.notice} />
      {types.error ? <Failure error={types.error} /> : null}
      {list.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Types of secrets of the site</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">Kind</th>
                <th scope="col">Sensitivity</th>
                {configure && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((type) => (
                <tr key={type.slug}>
                  <th scope="row">{type.name}</th>
                  <td>{type.slug}</td>
                  <td>{type.type}</td>
                  <td>{type.sensitivity_level}</td>
                  {configure && (
                    <td className="actions">
                      <button type="button" onClick={() => edit(type)} aria-label={`Edit type ${type.name}`}>
                        Edit
                      </button>
                      {/* A system type is never deleted (the API's rule): no button that can only be refused. */}
                      {type.type !== 'system' && (
                        <ConfirmButton
                          label="Delete"
                          what={`type ${type.name}`}
                          onConfirm={() => remove(type)}
                        />
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {configure ? (
        <form className="card" onSubmit={create} noValidate aria-labelledby="new-type-title">
          <h3 id="new-type-title">{editing ? `Edit the type ${editing}` : 'New type of secret'}</h3>
          <FormError error={action.error} shown={['name', 'schema', 'sensitivity_level', 'description']} />
          <TextField
            label="Type name"
            value={name}
            onChange={setName}
            required
            hint="Letters, digits, - and _."
            error={action.at('name')}
          />
          <TextField label="Type description" value={description} onChange={setDescription} />
          {!editing && (
            <SelectField
              label="Sensitivity"
              value={sensitivity}
              options={[
                ['public', 'public (readable without signing in)'],
                ['private', 'private (encrypted)'],
                ['sensitive', 'sensitive (encrypted)'],
              ]}
              onChange={setSensitivity}
              error={action.at('sensitivity_level')}
            />
          )}
          <TextField
            label="JSON Schema"
            value={schema}
            onChange={setSchema}
            multiline
            hint="Every value of this type is checked against it."
            error={schemaProblem ?? action.at('schema')}
          />
          <div className="toolbar">
            <button type="submit" className="primary" disabled={action.busy || Boolean(schemaProblem)}>
              {editing ? 'Save type' : 'Create type'}
            </button>
            {editing && (
              <button type="button" onClick={reset}>
                Cancel
              </button>
            )}
          </div>
        </form>
      ) : (
        <p className="muted">
          Creating, editing and deleting secret types needs the site's manage permission.
        </p>
      )}
    </section>
  );
}

/** The site's tags; a new one (who may configure the site). */
function Tags({ site, configure }: { site: string; configure: boolean }) {
  const queries = useQueryClient();
  const tags = useTags(site);
  const action = useAction();
  const [name, setName] = useState('');
  async function create(event: FormEvent) {
    event.preventDefault();
    const ok = await action.run(async () => {
      await answerOf(clientFor(site).POST('/api/tags/', { body: { name: name.trim() } }));
      await queries.invalidateQueries({ queryKey: ['tags', site] });
      return `Tag ${name.trim()} created.`;
    });
    if (ok) setName('');
  }
  async function remove(tag: Tag) {
    await action.run(async () => {
      await answerOf(clientFor(site).DELETE('/api/tags/{slug}/', { params: { path: { slug: tag.slug } } }));
      await queries.invalidateQueries({ queryKey: ['tags', site] });
      await queries.invalidateQueries({ queryKey: ['secrets', site] });
      return `Tag ${tag.name} deleted (taken off every secret).`;
    });
  }
  const list = tags.data ?? [];
  return (
    <section aria-labelledby="tags-title">
      <h2 id="tags-title">Tags</h2>
      <Notice text={action.notice} />
      {tags.error ? <Failure error={tags.error} /> : null}
      {tags.data && list.length === 0 && <p>This site has no tag yet.</p>}
      {list.length > 0 && (
        <ul className="chips" aria-label="Tags of the site">
          {list.map((tag) => (
            <li key={tag.slug}>
              {tag.name}
              {configure && (
                <ConfirmButton label="Delete" what={`tag ${tag.name}`} onConfirm={() => remove(tag)} />
              )}
            </li>
          ))}
        </ul>
      )}
      {configure && (
        <form className="card inline" onSubmit={create} noValidate aria-label="Create a tag">
          <FormError error={action.error} shown={['name']} />
          <TextField label="Tag name" value={name} onChange={setName} required error={action.at('name')} />
          <button type="submit" className="primary" disabled={action.busy}>
            Create tag
          </button>
        </form>
      )}
    </section>
  );
}

function SetSecret({ site, app, existing }: { site: string; app: string; existing: string[] }) {
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
