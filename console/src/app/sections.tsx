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
import { PlatformNavigation, PlatformScreen, platformSections } from './platform';

/** What a section's screen is given: where the person is, what they may do, who they are. */
export interface ScreenProps {
  place: Place & { org: string };
  abilities: Abilities | undefined;
  me: Identity | undefined;
}

/**
 * The console's sections, in the order the navigation lists them: this one list drives the navigation and the
 * routing. A section is an organization's (`org`) or a site's (`site`); its word is the address's
 * (`#/o/<org>/s/<site>/secrets`). Every section keeps the place (site, app, table, record and the grid's view)
 * in the address, so the header still says where you are and "Data" leads back to the same page of the table.
 * Each level also has its default screen, listed first: the sites of an organization, the apps of a site, and,
 * once an app is chosen, its data.
 */
export interface Section {
  id: string;
  label: string;
  level: 'org' | 'site';
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
    screen: ({ place, abilities }) => <AccessScreen place={place} abilities={abilities} />,
  },
  {
    id: 'events',
    label: 'Events',
    level: 'site',
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

const sectionIds = [...sections, ...platformSections].map((section) => section.id);

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

/** The place without its section: where "Data" leads back to (the table, the record, the grid's view). */
export function dataPlace(place: Place): Place {
  return { ...place, section: undefined };
}

interface NavLink {
  key: string;
  to: Place;
  label: string;
  current: boolean;
}

/** A level's sections as links that keep the place. */
function sectionLinks(place: Place, level: Section['level']): NavLink[] {
  return sections
    .filter((section) => section.level === level)
    .map((section) => ({
      key: section.id,
      to: { ...dataPlace(place), section: section.id },
      label: section.label,
      current: place.section === section.id,
    }));
}

/** The sections of the place's levels: each level's default screen, then its sections; each link keeps the place. */
export function Navigation({ place, me }: { place: Place; me: Identity | undefined }) {
  if (!place.org) return <PlatformNavigation place={place} me={me} />;
  const links: NavLink[] = [
    { key: 'org', to: { org: place.org }, label: 'Sites', current: !place.site && !place.section },
    ...sectionLinks(place, 'org'),
  ];
  if (place.site) {
    const site = { org: place.org, site: place.site };
    links.push({ key: 'site', to: site, label: 'Apps', current: !place.app && !place.section });
    if (place.app) links.push({ key: 'data', to: dataPlace(place), label: 'Data', current: !place.section });
    links.push(...sectionLinks(place, 'site'));
  }
  return (
    <nav aria-label="Sections" className="sections">
      {links.map((link) => (
        <a key={link.key} href={href(link.to)} aria-current={link.current ? 'page' : undefined}>
          {link.label}
        </a>
      ))}
    </nav>
  );
}

/** The screen of the place: its section's, or its level's default. */
export function Screen({ place, abilities, me }: { place: Place } & Omit<ScreenProps, 'place'>) {
  const { org, site } = place;
  const platform = platformSections.find((candidate) => candidate.id === place.section);
  if (!org && platform) return <PlatformScreen section={platform} me={me} />;
  if (!org) return <Organizations />;
  const section = sections.find((candidate) => candidate.id === place.section);
  if (section?.level === 'org')
    return section.screen({ place: { ...place, org, site: site ?? '' }, abilities, me });
  if (!site) return <Sites org={org} abilities={abilities} />;
  if (section) return section.screen({ place: { ...place, org, site }, abilities, me });
  if (!place.app) return <Apps org={org} site={site} abilities={abilities} />;
  return <DataScreen place={place} abilities={abilities} />;
}
