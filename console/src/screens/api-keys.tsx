import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { CheckList, TextField } from '../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction } from '../kit/parts';
import type { Place } from '../place';
import { answerOf, clientFor } from '../queries/client';

/**
 * API keys of a site (docs/security.md, "API keys"): the keys one may see (one's own; all of them for those who
 * administer the site), a new key within one's own rights (shown once), and revocation. The API decides who may
 * do what; this screen shows its answers.
 */

type KeyPermission = 'access_site' | 'view_site' | 'change_site' | 'delete_site' | 'manage_site';

const grantable: readonly (readonly [KeyPermission, string])[] = [
  ['view_site', 'View (view_site)'],
  ['change_site', 'Create and change content (change_site)'],
  ['delete_site', 'Delete content (delete_site)'],
  ['manage_site', 'Configure the site (manage_site)'],
  ['access_site', 'Call the site at all (access_site)'],
];

const keysPath = '/api/cloud/organizations/{org_slug}/sites/{site_slug}/api-keys/' as const;

export function ApiKeysScreen({ place }: { place: Place & { org: string } }) {
  const site = place.site ?? '';
  const path = { org_slug: place.org, site_slug: site };
  const queries = useQueryClient();
  const keys = useQuery({
    queryKey: ['api-keys', place.org, site],
    queryFn: () => listKeys(path),
  });
  const action = useAction();
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<KeyPermission[]>(['view_site']);
  const [shown, setShown] = useState('');
  const refresh = () => queries.invalidateQueries({ queryKey: ['api-keys', place.org, site] });

  async function create(event: FormEvent) {
    event.preventDefault();
    setShown('');
    const done = await action.run(async () => {
      const made = await answerOf(
        clientFor().POST(keysPath, { params: { path }, body: { name: name.trim(), permissions } }),
      );
      setShown(made.key);
      await refresh();
      return `Key ${made.name} created: copy it now, it is not shown again.`;
    });
    if (done) setName('');
  }

  async function revoke(id: string, keyName: string) {
    await action.run(async () => {
      await answerOf(
        clientFor().DELETE('/api/cloud/organizations/{org_slug}/sites/{site_slug}/api-keys/{key_id}/', {
          params: { path: { ...path, key_id: id } },
        }),
      );
      await refresh();
      return `Key ${keyName} revoked.`;
    });
  }

  const list = keys.data ?? [];
  return (
    <>
      <h1>API keys</h1>
      <p className="muted">
        A key lets a backend act on this site only, within its permissions and its creator's current rights.
      </p>
      <Notice text={action.notice} />
      {shown && (
        <p className="card">
          New key: <code>{shown}</code>
        </p>
      )}
      {keys.error ? <Failure error={keys.error} /> : null}
      {keys.data && list.length === 0 && <p>No key you may see.</p>}
      {list.length > 0 && <KeysTable keys={list} onRevoke={revoke} />}
      <form className="card" onSubmit={create} noValidate aria-labelledby="new-key-title">
        <h2 id="new-key-title">Create a key</h2>
        <FormError error={action.error} shown={['name', 'permissions']} />
        <TextField label="Key name" value={name} onChange={setName} required error={action.at('name')} />
        <CheckList legend="Permissions" items={grantable} chosen={permissions} onChange={setPermissions} />
        <button type="submit" className="primary" disabled={action.busy}>
          Create key
        </button>
      </form>
    </>
  );
}

type ListedKey = NonNullable<Awaited<ReturnType<typeof listKeys>>>[number];

function listKeys(path: { org_slug: string; site_slug: string }) {
  return answerOf(clientFor().GET(keysPath, { params: { path } }));
}

/** The keys one may see, each with its revocation. */
function KeysTable({
  keys,
  onRevoke,
}: {
  keys: readonly ListedKey[];
  onRevoke: (id: string, name: string) => void;
}) {
  return (
    <div className="scroll">
      <table>
        <caption className="sr-only">API keys of the site</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Permissions</th>
            <th scope="col">Created by</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{key.permissions.join(', ')}</td>
              <td>{key.created_by.username}</td>
              <td>{key.last_used_at ?? 'never'}</td>
              <td>{key.expires_at ?? 'never'}</td>
              <td className="actions">
                <ConfirmButton
                  label="Revoke"
                  what={`key ${key.name}`}
                  onConfirm={() => onRevoke(key.id, key.name)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
