import { useQueryClient } from '@tanstack/react-query';
import { Failure, FormError, Notice, useAction } from '../../kit/parts';
import { answerOf, clientFor } from '../../queries/client';
import { type Abilities, type Member, useMembers } from '../../queries/organizations';
import { AddMember } from './add-member';
import { Groups } from './groups';
import { Invitations } from './invitations';
import { SitePermissions } from './site-permissions';

export function PeopleScreen({
  org,
  abilities,
  meId,
}: {
  org: string;
  abilities?: Abilities;
  meId?: number;
}) {
  const members = useMembers(org);
  const queries = useQueryClient();
  const roleChange = useAction();
  async function changeRole(member: Member, role: Member['role']) {
    await roleChange.run(async () => {
      await answerOf(
        clientFor().POST('/api/cloud/organizations/{org_slug}/members/', {
          params: { path: { org_slug: org } },
          body: {
            user_id: member.user_id,
            role,
          },
        }),
      );
      await queries.invalidateQueries({ queryKey: ['members', org] });
      return `${member.user.username} is now ${role === 'admin' ? 'an admin' : 'a member'}.`;
    });
  }
  return (
    <>
      <h1>People</h1>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        {members.isLoading && <p>Loading…</p>}
        {members.error ? <Failure error={members.error} /> : null}
        <Notice text={roleChange.notice} />
        <FormError error={roleChange.error} />
        {members.data && (
          <div className="scroll">
            <table>
              <caption className="sr-only">Members of the organization</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Groups</th>
                </tr>
              </thead>
              <tbody>
                {members.data.results.map((member) => (
                  <tr key={member.user_id}>
                    <th scope="row">
                      {`${member.user.first_name} ${member.user.last_name}`.trim() || member.user.username}
                      {member.user_id === meId ? ' (you)' : ''}
                    </th>
                    <td>{member.user.username}</td>
                    <td>
                      {abilities?.orgAdmin && member.role !== 'owner' ? (
                        <select
                          aria-label={`Role of ${member.user.username}`}
                          value={member.role}
                          disabled={roleChange.busy}
                          onChange={(event) =>
                            changeRole(member, event.target.value === 'admin' ? 'admin' : 'member')
                          }
                        >
                          <option value="admin">admin</option>
                          <option value="member">member</option>
                        </select>
                      ) : (
                        member.role
                      )}
                    </td>
                    <td>{member.groups.map((group) => group.name).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {abilities?.superuser && <AddMember org={org} />}
      <Groups org={org} admin={abilities?.orgAdmin ?? false} members={members.data?.results ?? []} />
      {abilities?.orgAdmin && <SitePermissions org={org} members={members.data?.results ?? []} />}
      {abilities?.orgAdmin ? (
        <Invitations org={org} />
      ) : (
        <p className="muted">
          Invitations, groups and site permissions are managed by the organization's owner and admins.
        </p>
      )}
    </>
  );
}
