import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CheckList, TextField } from '../../kit/fields';
import { FormError, Notice, type Problem } from '../../kit/parts';
import { answerOf, clientFor, errorText } from '../../queries/client';
import { useMembers } from '../../queries/organizations';
import { batchSize, expiry } from './model';

/** Several roles to several people at once (or taken back), in batches, with progress and failures listed. */
export function Bulk({ site, org, roles }: { site: string; org: string; roles: [string, string][] }) {
  const queries = useQueryClient();
  const members = useMembers(org);
  const people = (members.data?.results ?? []).map((member) => member.user.username);
  const [chosenPeople, setChosenPeople] = useState<string[]>([]);
  const [chosenRoles, setChosenRoles] = useState<string[]>([]);
  const [until, setUntil] = useState('');
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [failures, setFailures] = useState<string[]>([]);
  const [error, setError] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  const running = progress !== null && progress.done < progress.total;

  async function go(kind: 'assign' | 'revoke') {
    setError(null);
    setFailures([]);
    setNotice('');
    const batches: string[][] = [];
    for (let i = 0; i < chosenPeople.length; i += batchSize)
      batches.push(chosenPeople.slice(i, i + batchSize));
    setProgress({ done: 0, total: chosenPeople.length });
    const failed: string[] = [];
    let done = 0;
    try {
      for (const usernames of batches) {
        const answer =
          kind === 'assign'
            ? await answerOf(
                clientFor(site).POST('/api/assign/roles', {
                  body: { roles: chosenRoles, usernames, ...(until ? { expires_at: expiry(until) } : {}) },
                }),
              )
            : await answerOf(
                clientFor(site).DELETE('/api/revoke/roles', { body: { roles: chosenRoles, usernames } }),
              );
        // Every pair done (`message`), or a partial success naming the failures.
        const outcome: {
          message: string;
          data?: { failures: { username: string; role: string; error: string }[] };
        } = answer;
        for (const failure of outcome.data?.failures ?? [])
          failed.push(`${failure.username}, ${failure.role}: ${failure.error}`);
        done += usernames.length;
        setProgress({ done, total: chosenPeople.length });
      }
      setNotice(
        `${kind === 'assign' ? 'Assigned' : 'Revoked'} ${chosenRoles.length} role${chosenRoles.length === 1 ? '' : 's'} for ${done} ${done === 1 ? 'person' : 'people'}${failed.length ? `; ${failed.length} failed` : ''}.`,
      );
    } catch (failure) {
      setError(errorText(failure));
      setProgress(null);
    } finally {
      setFailures(failed);
      await queries.invalidateQueries({ queryKey: ['holders', site] });
    }
  }

  return (
    <section aria-labelledby="bulk-title" className="card">
      <h2 id="bulk-title">Assign or revoke for several people</h2>
      <FormError error={error} shown={[]} />
      <div className="columns">
        <CheckList
          legend="People"
          items={people.map((name) => [name, name] as const)}
          chosen={chosenPeople}
          onChange={setChosenPeople}
        />
        <CheckList legend="Roles" items={roles} chosen={chosenRoles} onChange={setChosenRoles} />
      </div>
      <TextField
        label="Bulk expiry (optional)"
        value={until}
        onChange={setUntil}
        inputType="datetime-local"
      />
      <div className="toolbar">
        <button
          type="button"
          className="primary"
          disabled={running || chosenPeople.length === 0 || chosenRoles.length === 0}
          onClick={() => go('assign')}
        >
          Assign selected
        </button>
        <button
          type="button"
          className="danger"
          disabled={running || chosenPeople.length === 0 || chosenRoles.length === 0}
          onClick={() => go('revoke')}
        >
          Revoke selected
        </button>
      </div>
      {progress && (
        <div className="field">
          <label htmlFor="bulk-progress">Progress</label>
          <progress id="bulk-progress" max={progress.total} value={progress.done}>
            {progress.done} of {progress.total}
          </progress>
          <span className="status">
            {progress.done} of {progress.total} people done
          </span>
        </div>
      )}
      <Notice text={notice} />
      {failures.length > 0 && (
        <ul className="error" aria-label="Failures">
          {failures.map((failure) => (
            <li key={failure}>{failure}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
