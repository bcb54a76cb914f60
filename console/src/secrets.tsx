import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText, get } from './api';
import { type Abilities, Failure } from './shell';

/** A site's secrets: keys, types and tags; a value is shown only when revealed (a read of that one secret). */

interface Secret {
  key: string;
  tags: string[];
  secret_type: string;
}

export function SecretsScreen({ site }: { site: string; abilities?: Abilities }) {
  const secrets = useQuery({
    queryKey: ['secrets', site],
    queryFn: () => get<{ items: Secret[] }>('/api/secrets/', site, { page_size: '100' }),
  });
  const [revealed, setRevealed] = useState<Record<string, string>>({});

  async function reveal(key: string) {
    try {
      const answer = await get<Record<string, unknown>>(`/api/secrets/${encodeURIComponent(key)}/`, site);
      const value = (answer.value ?? (answer.data as Record<string, unknown> | undefined)?.value) as unknown;
      setRevealed((current) => ({ ...current, [key]: JSON.stringify(value, null, 2) }));
    } catch (error) {
      setRevealed((current) => ({ ...current, [key]: `Not shown: ${errorText(error).message}` }));
    }
  }

  return (
    <section>
      <h1>Secrets</h1>
      {secrets.isLoading && <p>Loading…</p>}
      {secrets.error ? <Failure error={secrets.error} /> : null}
      {secrets.data && secrets.data.items.length === 0 && <p>This site has no secret yet.</p>}
      {secrets.data && secrets.data.items.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Secrets of the site</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Type</th>
                <th scope="col">Tags</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {secrets.data.items.map((secret) => (
                <tr key={secret.key}>
                  <th scope="row">{secret.key}</th>
                  <td>{secret.secret_type}</td>
                  <td>{secret.tags.join(', ')}</td>
                  <td>
                    {revealed[secret.key] !== undefined ? (
                      <>
                        <pre>{revealed[secret.key]}</pre>
                        <button
                          type="button"
                          onClick={() =>
                            setRevealed((current) => {
                              const { [secret.key]: _, ...rest } = current;
                              return rest;
                            })
                          }
                          aria-label={`Hide the value of ${secret.key}`}
                        >
                          Hide
                        </button>
                      </>
                    ) : (
                      <button
                        type="button"
                        onClick={() => reveal(secret.key)}
                        aria-label={`Reveal the value of ${secret.key}`}
                      >
                        Reveal
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted">
        Creating, editing and tagging secrets, secret types and history are not in the console yet.
      </p>
    </section>
  );
}
