import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { TextField } from '../kit/fields';
import { Failure, useApps } from '../kit/parts';
import { href } from '../place';
import { answerOf, clientFor, errorText } from '../queries/client';
import type { Abilities, Named } from '../queries/organizations';

interface Listing<T> {
  results: T[];
}

function PickList<T extends Named>({
  title,
  query,
  link,
  empty,
  children,
}: {
  title: string;
  query: { data?: Listing<T>; isLoading: boolean; error: unknown };
  link: (item: T) => string;
  empty: string;
  children?: ReactNode;
}) {
  return (
    <section>
      <h1>{title}</h1>
      {children}
      {query.isLoading && <p>Loading…</p>}
      {query.error ? <Failure error={query.error} /> : null}
      {query.data && query.data.results.length === 0 && <p>{empty}</p>}
      {query.data && query.data.results.length > 0 && (
        <ul className="picks">
          {query.data.results.map((item) => (
            <li key={item.slug}>
              <a href={link(item)}>
                <strong>{item.name}</strong> <span className="muted">{item.slug}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function Organizations() {
  const query = useQuery({
    queryKey: ['orgs'],
    queryFn: () =>
      answerOf(clientFor().GET('/api/cloud/organizations/', { params: { query: { page_size: 100 } } })),
  });
  return (
    <PickList
      title="Choose an organization"
      query={query}
      link={(item) => href({ org: item.slug })}
      empty="You are not a member of any organization yet."
    >
      <CreateNamed
        what="organization"
        create={(name) => answerOf(clientFor().POST('/api/cloud/organizations/', { body: { name } }))}
        invalidate={['orgs']}
        go={(slug) => href({ org: slug })}
      />
    </PickList>
  );
}

export function Sites({ org, abilities }: { org: string; abilities?: Abilities }) {
  const query = useQuery({
    queryKey: ['sites', org],
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/organizations/{org_slug}/sites/', {
          params: {
            path: { org_slug: org },
            query: {
              page_size: 100,
            },
          },
        }),
      ),
  });
  return (
    <PickList
      title="Choose a site"
      query={query}
      link={(item) => href({ org, site: item.slug })}
      empty="This organization has no site yet."
    >
      {abilities?.orgAdmin && (
        <CreateNamed
          what="site"
          create={(name) =>
            answerOf(
              clientFor().POST('/api/cloud/organizations/{org_slug}/sites/', {
                params: { path: { org_slug: org } },
                body: { name },
              }),
            )
          }
          invalidate={['sites', org]}
          go={(slug) => href({ org, site: slug })}
        />
      )}
    </PickList>
  );
}

export function Apps({ org, site, abilities }: { org: string; site: string; abilities?: Abilities }) {
  const query = useApps(site);
  return (
    <PickList
      title="Choose an app"
      query={query}
      link={(item) => href({ org, site, app: item.slug })}
      empty="This site has no app yet."
    >
      {abilities?.can('configure') && (
        <CreateNamed
          what="app"
          create={(name) => answerOf(clientFor(site).POST('/api/apps/', { body: { name } }))}
          invalidate={['apps', site]}
          go={(slug) => href({ org, site, app: slug })}
        />
      )}
    </PickList>
  );
}

/** A one-field form that creates an organization, a site or an app by name and opens it. */
function CreateNamed({
  what,
  create,
  invalidate,
  go,
}: {
  what: string;
  /** The typed call that creates it by name; its answer names the new slug. */
  create: (name: string) => Promise<{ slug: string }>;
  invalidate: unknown[];
  go: (slug: string) => string;
}) {
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [error, setError] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { slug } = await create(name.trim());
      await queries.invalidateQueries({ queryKey: invalidate });
      location.hash = go(slug);
      setName('');
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }
  const fieldError = error?.fields.name?.join(' ');
  return (
    <form className="card inline" onSubmit={submit} noValidate aria-label={`Create: ${what}`}>
      {error && !fieldError && (
        <div role="alert" className="error">
          {error.message}
        </div>
      )}
      <TextField label={`New ${what}'s name`} value={name} onChange={setName} error={fieldError} required />
      <button type="submit" className="primary" disabled={busy}>
        Create {what}
      </button>
    </form>
  );
}
