import { useGetIdentity, useLogout } from '@refinedev/core';
import { useEffect } from 'react';
import { Failure } from '../kit/parts';
import { productName } from '../kit/product';
import type { Place } from '../place';
import { goToSignIn } from '../queries/client';
import { type Identity, useAbilities } from '../queries/organizations';
import { Crumbs } from './crumbs';
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
        <Crumbs place={place} />
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
