import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../../kit/fields';
import { FormError, Notice, useAction } from '../../kit/parts';
import { answerOf, clientFor } from '../../queries/client';

/**
 * A superuser adds a person to the organization (the API's rule: owners and admins bring people in through
 * invitations): a new account (e-mail, username, password, names) or an existing one by username or e-mail.
 */
export function AddMember({ org }: { org: string }) {
  const queries = useQueryClient();
  const action = useAction();
  const [kind, setKind] = useState('new');
  const [fields, setFields] = useState<Record<string, string>>({ role: 'member' });
  const field = (name: string) => ({
    value: fields[name] ?? '',
    onChange: (value: string) => setFields((current) => ({ ...current, [name]: value })),
  });
  async function add(event: FormEvent) {
    event.preventDefault();
    const { who = '', role, ...rest } = fields;
    const body: Record<string, string> = { role: role ?? 'member' };
    if (kind === 'new') {
      for (const [name, value] of Object.entries(rest)) if (value.trim()) body[name] = value.trim();
      body.password = rest.password ?? '';
    } else body[who.includes('@') ? 'email' : 'username'] = who.trim();
    const ok = await action.run(async () => {
      const added = await answerOf(
        clientFor().POST('/api/cloud/organizations/{org_slug}/members/', {
          params: { path: { org_slug: org } },
          body: body,
        }),
      );
      await queries.invalidateQueries({ queryKey: ['members', org] });
      return `${added.user.username} (user ${added.user.id}) is now ${body.role === 'admin' ? 'an admin' : 'a member'}.`;
    });
    if (ok) setFields({ role: body.role ?? 'member' });
  }
  const shown =
    kind === 'new'
      ? ['email', 'username', 'password', 'first_name', 'last_name', 'role']
      : ['user', 'username', 'email', 'role'];
  return (
    <section aria-labelledby="add-member-title">
      <h2 id="add-member-title">Add a member</h2>
      <Notice text={action.notice} />
      <form className="card" onSubmit={add} noValidate aria-labelledby="add-member-title">
        <FormError error={action.error} shown={shown} />
        <SelectField
          label="Account"
          value={kind}
          options={[
            ['new', 'a new account'],
            ['existing', 'an existing account'],
          ]}
          onChange={setKind}
        />
        {kind === 'new' ? (
          <>
            <TextField
              label="Member's e-mail"
              inputType="email"
              required
              {...field('email')}
              error={action.at('email')}
            />
            <TextField label="Member's username" {...field('username')} error={action.at('username')} />
            <TextField
              label="Member's password"
              inputType="password"
              required
              hint="10 characters or more, not easy to guess."
              {...field('password')}
              error={action.at('password')}
            />
            <TextField label="First name" {...field('first_name')} error={action.at('first_name')} />
            <TextField label="Last name" {...field('last_name')} error={action.at('last_name')} />
          </>
        ) : (
          <TextField
            label="Username or e-mail"
            required
            {...field('who')}
            error={action.at('user', 'username', 'email')}
          />
        )}
        <SelectField
          label="Organization role"
          value={fields.role ?? 'member'}
          options={[
            ['member', 'member'],
            ['admin', 'admin'],
          ]}
          onChange={field('role').onChange}
          error={action.at('role')}
        />
        <button type="submit" className="primary" disabled={action.busy}>
          Add member
        </button>
      </form>
    </section>
  );
}
