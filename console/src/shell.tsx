import { useGetIdentity, useLogout } from '@refinedev/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { AccessScreen } from './access';
import { ApiError, errorText, get, send, signInUrl } from './api';
import { DataScreen, TextField } from './data';
import { EventsScreen } from './events';
import { href, type Place } from './main';
import { PeopleScreen } from './people';
import { productName } from './product';
import { SecretsScreen } from './secrets';
import { SignInScreen } from './signin';

interface Identity {
  id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_superuser: boolean;
}
interface Listing<T> {
  results: T[];
}
interface Named {
  slug: string;
  name: string;
}
export interface Member {
  user_id: number;
  role: 'owner' | 'admin' | 'member';
  user: { id: number; username: string; first_name: string; last_name: string; email?: string };
  groups: { slug: string; name: string }[];
}

export type SiteAction =
  | 'administer'
  | 'configure'
  | 'manage_users'
  | 'change'
  | 'delete'
  | 'view'
  | 'access';

/** The API's answer about the caller on the request's site (GET /api/cloud/users/me/site-permissions/). */
interface OwnSitePermissions {
  site: string;
  organization_role: Member['role'] | null;
  permissions: string[];
  actions: SiteAction[];
  social_app_writes: boolean;
}

/**
 * What the signed-in person may do here, as the API tells it: the organization role (members list) and, on a
 * site, the site actions the API's policy grants them (`GET /api/cloud/users/me/site-permissions/`).
 */
export interface Abilities {
  /** Organization owner or admin, or a superuser: invitations, groups, roles of members, site permissions. */
  orgAdmin: boolean;
  /** The organization's owner or a superuser. */
  orgOwner: boolean;
  /** A superuser: adds any account to an organization, or creates one there. */
  superuser: boolean;
  /** Every write of a site's content and configuration at once (configure, change and delete). */
  siteWrite: boolean;
  /** One site action (docs/authorization.md) on the chosen site. */
  can: (action: SiteAction) => boolean;
  /** Social app writes (superusers and the organization's owner). */
  socialAppWrites: boolean;
  /** The caller's own grants on the chosen site. */
  sitePermissions: string[];
}

export function useOrganization(org: string | undefined) {
  return useQuery({
    queryKey: ['org', org],
    enabled: Boolean(org),
    queryFn: () => get<Named>(`/api/cloud/organizations/${encodeURIComponent(org ?? '')}/`),
  });
}

export function useMembers(org: string | undefined) {
  return useQuery({
    queryKey: ['members', org],
    enabled: Boolean(org),
    queryFn: () =>
      get<Listing<Member>>(`/api/cloud/organizations/${encodeURIComponent(org ?? '')}/members/`, undefined, {
        page_size: '100',
      }),
  });
}

/** The caller's own actions on a site; a 403 (no grant on the site) is "nothing", not an error. */
function useOwnSitePermissions(site: string | undefined) {
  return useQuery({
    queryKey: ['own-site-permissions', site],
    enabled: Boolean(site),
    queryFn: async () => {
      try {
        return await get<OwnSitePermissions>('/api/cloud/users/me/site-permissions/', site);
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) return null;
        throw error;
      }
    },
  });
}

export function useAbilities(
  org: string | undefined,
  site: string | undefined,
  me: Identity | undefined,
): Abilities | undefined {
  const members = useMembers(org);
  const own = useOwnSitePermissions(site);
  if (!me) return undefined;
  let role: Member['role'] | undefined;
  if (!me.is_superuser) {
    if (!members.data) return undefined;
    role = members.data.results.find((member) => member.user_id === me.id)?.role;
  }
  const admin = me.is_superuser || role === 'owner' || role === 'admin';
  const owner = me.is_superuser || role === 'owner';
  if (site && own.isLoading) return undefined;
  const actions = new Set<SiteAction>(site ? (own.data?.actions ?? []) : admin ? ['view', 'access'] : []);
  const can = (action: SiteAction) => actions.has(action);
  return {
    orgAdmin: admin,
    orgOwner: owner,
    superuser: me.is_superuser,
    siteWrite: can('configure') && can('change') && can('delete'),
    can,
    socialAppWrites: site ? (own.data?.social_app_writes ?? false) : owner,
    sitePermissions: own.data?.permissions ?? [],
  };
}

export function Shell({ place }: { place: Place }) {
  const identity = useGetIdentity<Identity>();
  const { mutate: logout, isPending: signingOut } = useLogout();
  const me = identity.data ?? undefined;
  const notSignedIn = identity.isSuccess && !identity.data;
  useEffect(() => {
    if (notSignedIn) location.assign(signInUrl());
  }, [notSignedIn]);
  const org = useOrganization(place.org);
  const site = useQuery({
    queryKey: ['site', place.site],
    enabled: Boolean(place.site),
    queryFn: () => get<Named>('/api/pages/site/', place.site),
  });
  const abilities = useAbilities(place.org, place.site, me);

  if (identity.isLoading || notSignedIn)
    return (
      <main className="boot">
        <h1>{productName}</h1>
        <p>{notSignedIn ? 'Taking you to the sign-in page…' : 'Loading…'}</p>
      </main>
    );
  if (identity.isError) return <Failure error={identity.error} />;

  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="top">
        <nav aria-label="Where you are" className="crumbs">
          <a href={href({})}>{productName}</a>
          {place.org && (
            <>
              <span aria-hidden="true">›</span>
              <a href={href({ org: place.org })}>{org.data?.name ?? place.org}</a>
            </>
          )}
          {place.site && (
            <>
              <span aria-hidden="true">›</span>
              <a href={href({ org: place.org, site: place.site })} className="site-name">
                Site: <strong>{site.data?.name ?? place.site}</strong>
              </a>
            </>
          )}
          {place.app && (
            <>
              <span aria-hidden="true">›</span>
              <a href={href({ org: place.org, site: place.site, app: place.app })}>App: {place.app}</a>
            </>
          )}
        </nav>
        <div className="who">
          <span>
            Signed in as <strong>{me?.username}</strong>
          </span>
          <button
            type="button"
            onClick={() => logout(undefined, { onSuccess: () => location.assign(signInUrl()) })}
            disabled={signingOut}
          >
            Sign out
          </button>
        </div>
      </header>
      {place.org && (
        <nav aria-label="Sections" className="sections">
          <a
            href={href({ org: place.org })}
            aria-current={!place.site && !place.section ? 'page' : undefined}
          >
            Sites
          </a>
          <a
            href={href({ org: place.org, section: 'people' })}
            aria-current={place.section === 'people' ? 'page' : undefined}
          >
            People
          </a>
          {place.site && (
            <>
              <a
                href={href({ org: place.org, site: place.site })}
                aria-current={place.site && !place.app && !place.section ? 'page' : undefined}
              >
                Apps
              </a>
              {(
                [
                  ['secrets', 'Secrets'],
                  ['access', 'Access'],
                  ['events', 'Events'],
                  ['sign-in', 'Sign-in'],
                ] as const
              ).map(([section, label]) => (
                <a
                  key={section}
                  href={href({
                    org: place.org,
                    site: place.site,
                    // Access and events are an app's: the chosen app goes along.
                    app: section === 'access' || section === 'events' ? place.app : undefined,
                    section,
                  })}
                  aria-current={place.section === section ? 'page' : undefined}
                >
                  {label}
                </a>
              ))}
            </>
          )}
        </nav>
      )}
      <main id="content" tabIndex={-1}>
        <Screen place={place} abilities={abilities} me={me} />
      </main>
    </>
  );
}

function Screen({ place, abilities, me }: { place: Place; abilities?: Abilities; me?: Identity }) {
  if (!place.org) return <Organizations />;
  if (place.section === 'people') return <PeopleScreen org={place.org} abilities={abilities} meId={me?.id} />;
  if (!place.site) return <Sites org={place.org} abilities={abilities} />;
  if (place.section === 'secrets') return <SecretsScreen site={place.site} abilities={abilities} />;
  if (place.section === 'access') return <AccessScreen place={place} abilities={abilities} />;
  if (place.section === 'events') return <EventsScreen place={place} abilities={abilities} />;
  if (place.section === 'sign-in') return <SignInScreen site={place.site} abilities={abilities} />;
  if (!place.app) return <Apps org={place.org} site={place.site} abilities={abilities} />;
  return <DataScreen place={place} abilities={abilities} />;
}

export function Failure({ error }: { error: unknown }) {
  const status = error instanceof ApiError ? error.status : undefined;
  return (
    <div role="alert" className="error">
      {status === 403
        ? 'You do not have access to this.'
        : status === 404
          ? 'Not found.'
          : error instanceof Error
            ? error.message
            : 'Something went wrong.'}
    </div>
  );
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

function Organizations() {
  const query = useQuery({
    queryKey: ['orgs'],
    queryFn: () => get<Listing<Named>>('/api/cloud/organizations/', undefined, { page_size: '100' }),
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
        path="/api/cloud/organizations/"
        invalidate={['orgs']}
        go={(slug) => href({ org: slug })}
      />
    </PickList>
  );
}

function Sites({ org, abilities }: { org: string; abilities?: Abilities }) {
  const query = useQuery({
    queryKey: ['sites', org],
    queryFn: () =>
      get<Listing<Named>>(`/api/cloud/organizations/${encodeURIComponent(org)}/sites/`, undefined, {
        page_size: '100',
      }),
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
          path={`/api/cloud/organizations/${encodeURIComponent(org)}/sites/`}
          invalidate={['sites', org]}
          go={(slug) => href({ org, site: slug })}
        />
      )}
    </PickList>
  );
}

function Apps({ org, site, abilities }: { org: string; site: string; abilities?: Abilities }) {
  const query = useQuery({
    queryKey: ['apps', site],
    queryFn: () => get<Listing<Named>>('/api/apps/', site, { page_size: '100' }),
  });
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
          path="/api/apps/"
          site={site}
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
  path,
  site,
  invalidate,
  go,
}: {
  what: string;
  path: string;
  site?: string;
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
      const created = await send<{ slug?: string; data?: { slug?: string } }>(
        'POST',
        path,
        { name: name.trim() },
        site,
      );
      await queries.invalidateQueries({ queryKey: invalidate });
      const slug = created.slug ?? created.data?.slug;
      if (slug) location.hash = go(slug);
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
