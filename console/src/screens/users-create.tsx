import { type FormEvent, useState } from 'react';
import { focusFirstError, TextField } from '../kit/fields';
import { FormError, Notice, useAction } from '../kit/parts';
import type { NewUser } from '../queries/users';

const blank: NewUser = { email: '', username: '', first_name: '', last_name: '' };

/**
 * A new account: its person gets an e-mail with a link to choose the password, so the superuser never knows it
 * (docs/console.md, "Users").
 */
export function CreateUser({ create }: { create: (fields: NewUser) => Promise<string> }) {
  const [fields, setFields] = useState(blank);
  const action = useAction();
  const set = (name: keyof NewUser) => (value: string) => setFields({ ...fields, [name]: value });
  async function submit(event: FormEvent) {
    event.preventDefault();
    const done = await action.run(() => create({ ...fields, email: fields.email.trim() }));
    if (done) setFields(blank);
    else focusFirstError('create-user');
  }
  return (
    <form id="create-user" className="card" onSubmit={submit} noValidate aria-labelledby="create-user-title">
      <h2 id="create-user-title">Create a user</h2>
      <p className="hint">The person gets an e-mail with a link to choose their password.</p>
      <TextField
        label="E-mail"
        inputType="email"
        required
        value={fields.email}
        onChange={set('email')}
        error={action.at('email')}
      />
      <TextField
        label="Username"
        hint="Optional: the e-mail address otherwise"
        value={fields.username}
        onChange={set('username')}
        error={action.at('username')}
      />
      <TextField
        label="First name"
        value={fields.first_name}
        onChange={set('first_name')}
        error={action.at('first_name')}
      />
      <TextField
        label="Last name"
        value={fields.last_name}
        onChange={set('last_name')}
        error={action.at('last_name')}
      />
      <FormError error={action.error} shown={['email', 'username', 'first_name', 'last_name']} />
      <Notice text={action.notice} />
      <button type="submit" className="primary" disabled={action.busy || !fields.email.trim()}>
        Create and send the link
      </button>
    </form>
  );
}
