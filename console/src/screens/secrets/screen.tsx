import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SelectField } from '../../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction, useApps } from '../../kit/parts';
import { ReadOnly } from '../../kit/permissions';
import { answerOf, clientFor, errorText } from '../../queries/client';
import type { Abilities } from '../../queries/organizations';
import { HistoryPanel, type HistoryShown, ValueCell } from './history';
import { LookUp } from './look-up';
import { historyPage, type Secret } from './model';
import { SecretTypes } from './secret-types';
import { SetSecret } from './set-secret';
import { SecretTags, Tags } from './tags';

/**
 * The secrets of one level: an app's (`app` filter), or the site's. The API's list without `app` holds both levels
 * without saying which, so the site level is that list less each app's secrets.
 */
export function useSecrets(site: string, app: string, apps: string[]) {
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
  const [history, setHistory] = useState<HistoryShown | null>(null);
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
                    <ValueCell
                      name={secret.key}
                      shown={revealed[secret.key]}
                      onReveal={() => reveal(secret.key)}
                      onHide={() =>
                        setRevealed((current) => {
                          const { [secret.key]: _, ...rest } = current;
                          return rest;
                        })
                      }
                    />
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
      {history && <HistoryPanel history={history} onPage={(offset) => showHistory(history.key, offset)} />}
      {tagging && can('change') && (
        <SecretTags site={site} level={level} secretKey={tagging} done={() => setTagging(null)} />
      )}
      {can('change') ? (
        <SetSecret site={site} app={app} existing={secrets.data?.items.map((secret) => secret.key) ?? []} />
      ) : (
        <ReadOnly what="setting secrets" action="change" />
      )}
      <SecretTypes site={site} configure={can('configure')} />
      <Tags site={site} configure={can('configure')} />
    </section>
  );
}
