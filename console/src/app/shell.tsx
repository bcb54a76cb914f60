import { useGetIdentity, useLogout } from '@refinedev/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Failure } from '../kit/parts';
import { productName } from '../kit/product';
import { href, type Place } from '../place';
import { answerOf, clientFor, goToSignIn } from '../queries/client';
import { type Identity, useAbilities, useOrganization } from '../queries/organizations';
import { Navigation, Screen } from './sections';

/** The frame of every screen: where you are, who you are, the sections, and the section's screen. */
export function Shell({ place }: { place: Place }) {
  const identity = useGetIdentity<Identity>();
  const { mutate: logout, isPending: signingOut } = useLogout();
  const me = identity.data ?? undefined;
  const notSignedIn = identity.isSuccess && !identity.data;
  useEffect(() => {
    if (notSignedIn) goToSignIn();
  }, [notSignedIn]);
  const org = useOrganization(place.org);
  const site = useQuery({
    queryKey: ['site', place.site],
    enabled: Boolean(place.site),
    queryFn: () => answerOf(clientFor(place.site).GET('/api/pages/site/')),
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
            onClick={() => logout(undefined, { onSuccess: goToSignIn })}
            disabled={signingOut}
          >
            Sign out
          </button>
        </div>
      </header>
      <Navigation place={place} me={me} />
      <main id="content" tabIndex={-1}>
        <Screen place={place} abilities={abilities} me={me} />
      </main>
    </>
  );
}
