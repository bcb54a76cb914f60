import { type FormEvent, useState } from 'react';
import { TextField } from '../../kit/fields';
import { useAction } from '../../kit/parts';
import { answerOf, clientFor } from '../../queries/client';

/** What the app reads for a key: its own secret, else the site's (the API's lookup), and from which level. */
export function LookUp({ site, app, own }: { site: string; app: string; own: string[] }) {
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
