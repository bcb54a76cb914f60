import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { CheckList, SelectField, TextField } from '../../kit/fields';
import { FormError, toggle } from '../../kit/parts';
import { PermissionBox, permissionLabel, roleOf, sitePermissions, siteRoles } from '../../kit/permissions';
import { answerOf, clientFor, errorText } from '../../queries/client';
import { organizationCalls, type SitePermission } from '../../queries/people';
import { useSites } from './model';

type Grant = { site: string; permissions: SitePermission[] };
const noGrant = (): Grant => ({ site: '', permissions: [] });

function useGroups(org: string) {
  return useQuery({
    queryKey: ['groups', org],
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/organizations/{org_slug}/groups/', {
          params: { path: { org_slug: org }, query: { page_size: 100 } },
        }),
      ),
  });
}

/** The invitation's configuration from the form: its groups and the sites chosen with some permission. */
function configOf(groups: string[], grants: Grant[]) {
  const config: { group?: string[]; site?: { slug: string; permissions: SitePermission[] }[] } = {};
  if (groups.length) config.group = groups;
  const chosen = grants
    .filter((grant) => grant.site && grant.permissions.length)
    .map((grant) => ({ slug: grant.site, permissions: grant.permissions }));
  if (chosen.length) config.site = chosen;
  return config;
}

/** Invite someone: an e-mail, groups to join, and a role (or permissions) on one or more sites. */
export function InviteForm({ org, onSent }: { org: string; onSent: (notice: string) => Promise<void> }) {
  const calls = organizationCalls(org);
  const [email, setEmail] = useState('');
  const [groups, setGroups] = useState<string[]>([]);
  const [grants, setGrants] = useState<Grant[]>([noGrant()]);
  const sites = useSites(org);
  const groupList = useGroups(org);
  const [error, setError] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [busy, setBusy] = useState(false);
  const setGrant = (index: number, change: Partial<Grant>) =>
    setGrants((current) => current.map((grant, at) => (at === index ? { ...grant, ...change } : grant)));

  async function invite(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const config = configOf(groups, grants);
      await calls.invite({
        invitee_identifier: email.trim(),
        ...(Object.keys(config).length ? { invitation_config: config } : {}),
      });
      const sent = email.trim();
      setEmail('');
      setGroups([]);
      setGrants([noGrant()]);
      await onSent(`Invitation sent to ${sent}.`);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  const siteList = sites.data?.results ?? [];
  return (
    <form className="card" onSubmit={invite} noValidate aria-label="Invite someone">
      <FormError error={error} shown={['invitee_identifier', 'invitation_config.site']} />
      <TextField
        label="E-mail address"
        value={email}
        onChange={setEmail}
        inputType="email"
        required
        error={error?.fields.invitee_identifier?.join(' ')}
      />
      {groupList.data && groupList.data.results.length > 0 && (
        <CheckList
          legend="Groups to join"
          items={groupList.data.results.map((group) => [group.slug, group.name] as const)}
          chosen={groups}
          onChange={setGroups}
        />
      )}
      {grants.map((grant, index) => (
        <SiteGrant
          key={`grant-${index + 1}`}
          index={index}
          grant={grant}
          sites={siteList.filter(
            (item) => item.slug === grant.site || !grants.some((other) => other.site === item.slug),
          )}
          error={index === 0 ? error?.fields['invitation_config.site']?.join(' ') : undefined}
          onChange={(change) => setGrant(index, change)}
        />
      ))}
      {siteList.length > grants.length && grants.every((grant) => grant.site) && (
        <button type="button" onClick={() => setGrants((current) => [...current, noGrant()])}>
          Add another site
        </button>
      )}
      <button type="submit" className="primary" disabled={busy}>
        Invite
      </button>
    </form>
  );
}

/** One site of an invitation: the role the invitee gets on it, or the permissions one by one. */
function SiteGrant({
  index,
  grant,
  sites,
  error,
  onChange,
}: {
  index: number;
  grant: Grant;
  sites: { slug: string; name: string }[];
  error: string | undefined;
  onChange: (change: Partial<Grant>) => void;
}) {
  const nth = index === 0 ? '' : ` ${index + 1}`;
  const role = roleOf(grant.permissions);
  return (
    <fieldset>
      <legend>{`Site permissions${nth}`}</legend>
      <SelectField
        label={`Site${nth}`}
        value={grant.site}
        options={[['', '(no site)'], ...sites.map((item): [string, string] => [item.slug, item.name])]}
        onChange={(value) => onChange({ site: value })}
        error={error}
      />
      {grant.site && (
        <>
          <SelectField
            label={`Role on the site${nth}`}
            value={grant.permissions.length ? role : ''}
            options={[
              ['', '(choose a role)'],
              ...siteRoles.map((item): [string, string] => [item.id, item.label]),
              ['custom', 'Custom: the permissions ticked below'],
            ]}
            onChange={(value) => {
              const bundle = siteRoles.find((item) => item.id === value);
              if (bundle) onChange({ permissions: [...bundle.permissions] });
            }}
          />
          {sitePermissions.map((permission) => (
            <PermissionBox
              key={permission}
              permission={permission}
              name={index === 0 ? undefined : `${permissionLabel(permission)} on site ${index + 1}`}
              checked={grant.permissions.includes(permission)}
              onChange={(checked) =>
                onChange({ permissions: toggle(grant.permissions, permission, checked) })
              }
            />
          ))}
        </>
      )}
    </fieldset>
  );
}
