import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction } from '../kit/parts';
import { answerOf, clientFor } from '../queries/client';
import type { Abilities } from '../queries/organizations';

/**
 * A site's sign-in settings (docs/social-login.md): its social apps (login providers), created and edited by the
 * organization's owner. The client secret is write-only here: never shown, never put back in a field; an empty
 * field keeps the stored one. "Test" runs the API's check of the provider (configuration, discovery, key set).
 */

interface ListedApp {
  id: number;
  provider: string;
  provider_id: string;
  name: string;
  provider_display: string;
  is_configured: boolean;
  icon?: string;
  auto_redirect?: boolean;
}
interface AppDetail {
  id: number;
  provider: string;
  provider_id: string;
  name: string;
  client_id: string;
  key: string;
  settings: { server_url?: string; icon?: string; auto_redirect?: boolean };
}
interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const providers = ['openid_connect', 'google', 'gitlab', 'github', 'microsoft', 'facebook', 'discord'];

export function SignInScreen({ site, abilities }: { site: string; abilities?: Abilities }) {
  const apps = useQuery({
    queryKey: ['social-apps', site],
    queryFn: () =>
      answerOf(clientFor(site).GET('/api/auth/social-apps/', { params: { query: { page_size: 100 } } })),
  });
  const queries = useQueryClient();
  const writes = abilities?.socialAppWrites ?? false;
  const [editing, setEditing] = useState<AppDetail | 'new' | null>(null);
  const [checks, setChecks] = useState<{ name: string; ok: boolean; checks: Check[] } | null>(null);
  const action = useAction();

  async function edit(app: ListedApp) {
    await action.run(async () => {
      setEditing(
        await answerOf(
          clientFor(site).GET('/api/auth/social-apps/{id}/', { params: { path: { id: app.id } } }),
        ),
      );
      return undefined;
    });
  }
  async function test(app: ListedApp) {
    setChecks(null);
    await action.run(async () => {
      const answer = await answerOf(
        clientFor(site).POST('/api/auth/social-apps/{id}/check/', {
          params: { path: { id: app.id } },
        }),
      );
      setChecks({ name: app.name, ...answer });
      return answer.ok ? `${app.name}: every check passed.` : `${app.name}: a check failed.`;
    });
  }
  async function remove(app: ListedApp) {
    await action.run(async () => {
      await answerOf(
        clientFor(site).DELETE('/api/auth/social-apps/{id}/', { params: { path: { id: app.id } } }),
      );
      await queries.invalidateQueries({ queryKey: ['social-apps', site] });
      return `${app.name} deleted.`;
    });
  }

  const list = apps.data?.data ?? [];
  return (
    <section>
      <h1>Sign-in settings</h1>
      <p>
        The site's sign-in page shows one button per configured provider:{' '}
        <a href={`/sign-in?site=${encodeURIComponent(site)}&auto_redirect=0`} target="_blank" rel="noopener">
          open the site's sign-in page
        </a>{' '}
        (a new tab; signing in there signs this browser in as that account).
      </p>
      {!writes && (
        <p className="muted">Read only: the sign-in providers are set by the organization's owner.</p>
      )}
      <Notice text={action.notice} />
      {action.error && !editing ? <FormError error={action.error} /> : null}
      {apps.error ? <Failure error={apps.error} /> : null}
      {apps.data && list.length === 0 && <p>This site has no login provider yet.</p>}
      {list.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Login providers of the site</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col">Configured</th>
                <th scope="col">Redirects at once</th>
                {writes && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((app) => (
                <tr key={app.id}>
                  <th scope="row">{app.name}</th>
                  <td>
                    {app.provider_display}
                    {app.provider_id ? ` (${app.provider_id})` : ''}
                  </td>
                  <td>{app.is_configured ? 'yes' : 'no'}</td>
                  <td>{app.auto_redirect ? 'yes' : 'no'}</td>
                  {writes && (
                    <td className="actions">
                      <button type="button" onClick={() => edit(app)} aria-label={`Edit ${app.name}`}>
                        Edit
                      </button>
                      <button type="button" onClick={() => test(app)} aria-label={`Test ${app.name}`}>
                        Test
                      </button>
                      <ConfirmButton label="Delete" what={app.name} onConfirm={() => remove(app)} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {checks && (
        <section aria-labelledby="checks-title" className="card">
          <h2 id="checks-title">
            Test of {checks.name}: {checks.ok ? 'passed' : 'failed'}
          </h2>
          <ul>
            {checks.checks.map((check) => (
              <li key={check.name}>
                <strong>{check.ok ? 'ok' : 'failed'}</strong> {check.name}: {check.detail}
              </li>
            ))}
          </ul>
        </section>
      )}
      {writes &&
        (editing ? (
          <AppForm
            key={editing === 'new' ? 'new' : editing.id}
            site={site}
            existing={editing === 'new' ? null : editing}
            done={() => setEditing(null)}
          />
        ) : (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Add a login provider
          </button>
        ))}
    </section>
  );
}

function AppForm({ site, existing, done }: { site: string; existing: AppDetail | null; done: () => void }) {
  const queries = useQueryClient();
  const action = useAction();
  const [provider, setProvider] = useState(existing?.provider ?? 'openid_connect');
  const [providerId, setProviderId] = useState(existing?.provider_id ?? '');
  const [name, setName] = useState(existing?.name ?? '');
  const [clientId, setClientId] = useState(existing?.client_id ?? '');
  // Write-only: starts empty, whatever is stored.
  const [secret, setSecret] = useState('');
  const [serverUrl, setServerUrl] = useState(existing?.settings.server_url ?? '');
  const [icon, setIcon] = useState(existing?.settings.icon ?? '');
  const [autoRedirect, setAutoRedirect] = useState(existing?.settings.auto_redirect ?? false);
  const oidc = provider === 'openid_connect';

  async function submit(event: FormEvent) {
    event.preventDefault();
    // `icon: null` removes a stored icon; a blank secret keeps the stored one (left out).
    const settings: { auto_redirect: boolean; server_url?: string; icon?: string | null } = {
      auto_redirect: autoRedirect,
    };
    if (oidc) settings.server_url = serverUrl.trim();
    if (icon.trim()) settings.icon = icon.trim();
    else if (existing?.settings.icon) settings.icon = null;
    const body = {
      name: name.trim(),
      client_id: clientId.trim(),
      settings,
      ...(oidc ? { provider_id: providerId.trim() } : {}),
    };
    const ok = await action.run(async () => {
      // The answer of a create echoes the secret: it is not kept, nor shown.
      if (existing)
        await answerOf(
          clientFor(site).PATCH('/api/auth/social-apps/{id}/', {
            params: { path: { id: existing.id } },
            body: { ...body, ...(secret ? { secret } : {}) },
          }),
        );
      else
        await answerOf(
          clientFor(site).POST('/api/auth/social-apps/', {
            body: { ...body, settings: { ...settings, icon: settings.icon ?? undefined }, provider, secret },
          }),
        );
      setSecret('');
      await queries.invalidateQueries({ queryKey: ['social-apps', site] });
      return undefined;
    });
    if (ok) done();
  }
  const shown = ['provider', 'provider_id', 'name', 'client_id', 'secret', 'settings', 'settings.server_url'];
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="social-form-title">
      <h2 id="social-form-title">{existing ? `Edit ${existing.name}` : 'Add a login provider'}</h2>
      <FormError error={action.error} shown={shown} />
      <SelectField
        label="Provider"
        value={provider}
        options={providers.map((item): [string, string] => [item, item])}
        onChange={setProvider}
        disabled={Boolean(existing)}
        error={action.at('provider')}
      />
      {oidc && (
        <TextField
          label="Provider id"
          value={providerId}
          onChange={setProviderId}
          required
          hint="Lower-case letters, digits, - and _: part of the login's address."
          error={action.at('provider_id')}
        />
      )}
      <TextField label="Display name" value={name} onChange={setName} required error={action.at('name')} />
      <TextField
        label="Client id"
        value={clientId}
        onChange={setClientId}
        required
        error={action.at('client_id')}
      />
      <TextField
        label="Client secret"
        value={secret}
        onChange={setSecret}
        inputType="password"
        required={!existing}
        hint={
          existing
            ? 'Never shown. Leave empty to keep the stored secret; type a new one to replace it.'
            : 'Never shown again once saved.'
        }
        error={action.at('secret')}
      />
      {oidc && (
        <TextField
          label="Discovery URL"
          value={serverUrl}
          onChange={setServerUrl}
          inputType="url"
          required
          hint="The provider's .well-known/openid-configuration address."
          error={action.at('settings', 'settings.server_url')}
        />
      )}
      <TextField label="Icon URL (optional)" value={icon} onChange={setIcon} inputType="url" />
      <label className="check">
        <input
          type="checkbox"
          checked={autoRedirect}
          onChange={(event) => setAutoRedirect(event.target.checked)}
        />{' '}
        Send the sign-in page to this provider at once
      </label>
      <div className="toolbar">
        <button type="submit" className="primary" disabled={action.busy}>
          {existing ? 'Save provider' : 'Create provider'}
        </button>
        <button type="button" onClick={done}>
          Close
        </button>
      </div>
    </form>
  );
}
