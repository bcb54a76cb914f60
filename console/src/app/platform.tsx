import type { ReactNode } from 'react';
import { href, type Place } from '../place';
import { useOutbox } from '../queries/mail';
import type { Identity } from '../queries/organizations';
import { MailScreen } from '../screens/mail';
import { UsersScreen } from '../screens/users';

/**
 * The platform's own sections, above every organization and for superusers only (`#/users`, `#/mail`): the
 * accounts, and on the local runtime the outbox. The API decides (superusers, and Mail only where the local host
 * serves it); the navigation only leaves out what would be refused or missing.
 */
interface PlatformSection {
  id: string;
  label: string;
  screen: () => ReactNode;
}

export const platformSections: readonly PlatformSection[] = [
  { id: 'users', label: 'Users', screen: () => <UsersScreen /> },
  { id: 'mail', label: 'Mail', screen: () => <MailScreen /> },
];

/** The platform's sections a superuser has here: Mail only where the outbox answers (never in the cloud). */
export function PlatformNavigation({ place, me }: { place: Place; me: Identity | undefined }) {
  const superuser = me?.is_superuser === true;
  const outbox = useOutbox(superuser);
  if (!superuser) return null;
  const shown = platformSections.filter((section) => section.id !== 'mail' || outbox.data);
  return (
    <nav aria-label="Platform" className="sections">
      <a href={href({})} aria-current={!place.section ? 'page' : undefined}>
        Organizations
      </a>
      {shown.map((section) => (
        <a
          key={section.id}
          href={href({ section: section.id })}
          aria-current={place.section === section.id ? 'page' : undefined}
        >
          {section.label}
        </a>
      ))}
    </nav>
  );
}

/** A platform section's screen: superusers only. */
export function PlatformScreen({ section, me }: { section: PlatformSection; me: Identity | undefined }) {
  if (!me?.is_superuser) return <p role="alert">Only superusers see the platform's {section.label}.</p>;
  return section.screen();
}
