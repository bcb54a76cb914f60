import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SelectField } from '../../kit/fields';
import { Failure, FormError, Notice, toggle, useAction } from '../../kit/parts';
import { PermissionBox, PermissionLegend, permissionLabel, sitePermissions } from '../../kit/permissions';
import type { Member } from '../../queries/organizations';
import { organizationCalls, type SitePermission } from '../../queries/people';
import { useSites } from './model';

/** Each member's permissions on one site of the organization: granted and revoked by checkbox, saved per member. */
export function SitePermissions({ org, members }: { org: string; members: Member[] }) {
  const sites = useSites(org);
  const [picked, setPicked] = useState('');
  const site = picked || sites.data?.results[0]?.slug || '';
  const calls = organizationCalls(org);
  const grants = useQuery({
    queryKey: ['site-permissions', org, site],
    enabled: Boolean(site),
    queryFn: () => calls.sitePermissions(site),
  });
  const queries = useQueryClient();
  const action = useAction();
  const [edits, setEdits] = useState<Record<number, SitePermission[]>>({});
  const held = (userId: number) =>
    edits[userId] ?? grants.data?.find((grant) => grant.user_id === userId)?.permissions ?? [];
  async function save(member: Member) {
    const permissions = held(member.user_id);
    await action.run(async () => {
      await calls.setSitePermissions(site, member.user_id, permissions);
      await queries.invalidateQueries({ queryKey: ['site-permissions', org, site] });
      await queries.invalidateQueries({ queryKey: ['own-site-permissions', site] });
      setEdits(({ [member.user_id]: _, ...rest }) => rest);
      return permissions.length
        ? `${member.user.username} now holds ${permissions.map(permissionLabel).join(', ')} on ${site}.`
        : `${member.user.username} holds nothing on ${site} now.`;
    });
  }
  // Owners and admins hold everything on every site through their role: their rows need no grant.
  const people = members.filter((member) => member.role === 'member');
  return (
    <section aria-labelledby="site-permissions-title">
      <h2 id="site-permissions-title">Site permissions</h2>
      <p className="muted">
        Owners and admins may do everything on every site; members hold what is granted here.
      </p>
      <PermissionLegend />
      {sites.data && sites.data.results.length === 0 && <p>This organization has no site yet.</p>}
      {sites.data && sites.data.results.length > 0 && (
        <SelectField
          label="Permissions on the site"
          value={site}
          options={sites.data.results.map((item): [string, string] => [item.slug, item.name])}
          onChange={setPicked}
        />
      )}
      <Notice text={action.notice} />
      <FormError error={action.error} />
      {grants.error ? <Failure error={grants.error} /> : null}
      {grants.data && people.length === 0 && <p>No plain member to grant permissions to.</p>}
      {grants.data && people.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Permissions of the members on {site}</caption>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Permissions</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {people.map((member) => (
                <tr key={member.user_id}>
                  <th scope="row">{member.user.username}</th>
                  <td>
                    <fieldset className="perms">
                      <legend className="sr-only">Permissions of {member.user.username}</legend>
                      {sitePermissions.map((permission) => (
                        <PermissionBox
                          key={permission}
                          permission={permission}
                          explained={false}
                          name={`${permissionLabel(permission)} for ${member.user.username}`}
                          checked={held(member.user_id).includes(permission)}
                          onChange={(checked) =>
                            setEdits((current) => ({
                              ...current,
                              [member.user_id]: toggle(held(member.user_id), permission, checked),
                            }))
                          }
                        />
                      ))}
                    </fieldset>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="primary"
                      disabled={action.busy || edits[member.user_id] === undefined}
                      onClick={() => save(member)}
                      aria-label={`Save the permissions of ${member.user.username}`}
                    >
                      Save
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
