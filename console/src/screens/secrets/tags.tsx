import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { CheckList, TextField } from '../../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction } from '../../kit/parts';
import { answerOf, clientFor } from '../../queries/client';
import { type Tag, useSecretTypes, useTags } from './model';

/**
 * A secret's tags. The API replaces a secret whole (type, value, tags), so saving reads the secret once and
 * writes it back with the new tags: the value goes from the API to the API and is never shown.
 */
export function SecretTags({
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
        <CheckList
          legend="Tags"
          items={list.map((tag) => [tag.name, tag.name] as const)}
          chosen={selected}
          onChange={setChosen}
        />
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

/** The site's tags; a new one (who may configure the site). */
export function Tags({ site, configure }: { site: string; configure: boolean }) {
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
