import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { href, type Place, parsePlace } from '../place';
import type { Abilities, Identity } from '../queries/organizations';
import { AccessScreen } from '../screens/access/screen';
import { ApiKeysScreen } from '../screens/api-keys';
import { DataScreen } from '../screens/data/screen';
import { EventsScreen } from '../screens/events';
import { Apps, Organizations, Sites } from '../screens/home';
import { PeopleScreen } from '../screens/people/screen';
import { SecretsScreen } from '../screens/secrets/screen';
import { SignInScreen } from '../screens/signin';

/** What a section's screen is given: where the person is, what they may do, who they are. */
export interface ScreenProps {
  place: Place & { org: string };
  abilities: Abilities | undefined;
  me: Identity | undefined;
}

/**
 * The console's sections, in the order the navigation lists them: this one list drives the navigation and the
 * routing. A section is an organization's (`org`) or a site's (`site`); its word is the address's
 * (`#/o/<org>/s/<site>/secrets`). A section that keeps the app carries the chosen app along (access and events
 * are an app's). Each level also has its default screen, listed first: the sites of an organization, the apps of
 * a site (and, once an app is chosen, its data).
 */
export interface Section {
  id: string;
  label: string;
  level: 'org' | 'site';
  keepsApp?: boolean;
  screen: (props: ScreenProps & { place: { site: string } }) => ReactNode;
}

export const sections: readonly Section[] = [
  {
    id: 'people',
    label: 'People',
    level: 'org',
    screen: ({ place, abilities, me }) => (
      <PeopleScreen org={place.org} abilities={abilities} meId={me?.id} />
    ),
  },
  {
    id: 'secrets',
    label: 'Secrets',
    level: 'site',
    screen: ({ place, abilities }) => <SecretsScreen site={place.site} abilities={abilities} />,
  },
  {
    id: 'access',
    label: 'Access',
    level: 'site',
    keepsApp: true,
    screen: ({ place, abilities }) => <AccessScreen place={place} abilities={abilities} />,
  },
  {
    id: 'events',
    label: 'Events',
    level: 'site',
    keepsApp: true,
    screen: ({ place, abilities }) => <EventsScreen place={place} abilities={abilities} />,
  },
  {
    id: 'api-keys',
    label: 'API keys',
    level: 'site',
    screen: ({ place }) => <ApiKeysScreen place={place} />,
  },
  {
    id: 'sign-in',
    label: 'Sign-in',
    level: 'site',
    screen: ({ place, abilities }) => <SignInScreen site={place.site} abilities={abilities} />,
  },
];

const defaults = { org: 'Sites', site: 'Apps' } as const;
const sectionIds = sections.map((section) => section.id);

/** The place of the address, followed as it changes. */
export function usePlace(): Place {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return useMemo(() => parsePlace(hash, sectionIds), [hash]);
}

/** The sections of the place's levels: each level's default screen, then its sections. */
export function Navigation({ place }: { place: Place }) {
  if (!place.org) return null;
  const levels = place.site ? (['org', 'site'] as const) : (['org'] as const);
  return (
    <nav aria-label="Sections" className="sections">
      {levels.map((level) => {
        const here = level === 'org' ? { org: place.org } : { org: place.org, site: place.site };
        const atDefault = level === 'org' ? !place.site && !place.section : !place.app && !place.section;
        return [
          <a key={level} href={href(here)} aria-current={atDefault ? 'page' : undefined}>
            {defaults[level]}
          </a>,
          ...sections
            .filter((section) => section.level === level)
            .map((section) => (
              <a
                key={section.id}
                href={href({ ...here, app: section.keepsApp ? place.app : undefined, section: section.id })}
                aria-current={place.section === section.id ? 'page' : undefined}
              >
                {section.label}
              </a>
            )),
        ];
      })}
    </nav>
  );
}

/** The screen of the place: its section's, or its level's default. */
export function Screen({ place, abilities, me }: { place: Place } & Omit<ScreenProps, 'place'>) {
  const { org, site } = place;
  if (!org) return <Organizations />;
  const section = sections.find((candidate) => candidate.id === place.section);
  if (section?.level === 'org')
    return section.screen({ place: { ...place, org, site: site ?? '' }, abilities, me });
  if (!site) return <Sites org={org} abilities={abilities} />;
  if (section) return section.screen({ place: { ...place, org, site }, abilities, me });
  if (!place.app) return <Apps org={org} site={site} abilities={abilities} />;
  return <DataScreen place={place} abilities={abilities} />;
}
