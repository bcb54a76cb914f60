import { Refine } from '@refinedev/core';
import { StrictMode, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { authProvider, dataProvider } from '../../client/src/refine';
import { clientFor } from './api';
import { Shell } from './shell';
import './console.css';

/**
 * The console (docs/console.md): refine (headless) over the typed client's providers, React, plain accessible
 * HTML. Where the person is lives in the address's hash (`#/o/<org>/s/<site>/a/<app>/t/<table>`), so the server
 * serves one page and a reload or a shared link lands on the same screen.
 */
export interface Place {
  org?: string;
  site?: string;
  app?: string;
  table?: string;
  /** A record of the table (its key), the record screen: its fields and its relationships. */
  record?: string;
  /** `people` (an organization's); `secrets`, `access`, `events`, `sign-in` (a site's); or the level's default. */
  section?: string;
}

const sections = ['people', 'secrets', 'access', 'events', 'sign-in'];

/** A part of the address as typed: a malformed escape (a crafted link) is kept as it is, never a blank page. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function parsePlace(hash: string): Place {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodePart);
  const place: Place = {};
  const levels: Record<string, 'org' | 'site' | 'app' | 'table' | 'record'> = {
    o: 'org',
    s: 'site',
    a: 'app',
    t: 'table',
    r: 'record',
  };
  for (let i = 0; i < parts.length; i++) {
    const key = parts[i] ?? '';
    const level = levels[key];
    const value = parts[i + 1];
    if (level && value) {
      place[level] = value;
      i++;
    } else if (sections.includes(key)) place.section = key;
  }
  return place;
}

export function href(place: Place): string {
  const parts: string[] = [];
  if (place.org) parts.push('o', place.org);
  if (place.site) parts.push('s', place.site);
  if (place.app) parts.push('a', place.app);
  if (place.table) parts.push('t', place.table);
  if (place.table && place.record) parts.push('r', place.record);
  if (place.section) parts.push(place.section);
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

function usePlace(): Place {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return useMemo(() => parsePlace(hash), [hash]);
}

function App() {
  const place = usePlace();
  const client = clientFor(place.site);
  // refine's providers are bound to one site and one app: a new pick is a new <Refine>.
  const providers = useMemo(
    () => ({
      data: dataProvider(client, { app: place.app ?? '' }),
      auth: authProvider(client, { loginPath: '/sign-in' }),
    }),
    [client, place.app],
  );
  return (
    <Refine
      key={`${place.site ?? ''}/${place.app ?? ''}`}
      dataProvider={providers.data}
      authProvider={providers.auth}
      options={{
        disableTelemetry: true,
        reactQuery: { clientConfig: { defaultOptions: { queries: { retry: false } } } },
      }}
    >
      <Shell place={place} />
    </Refine>
  );
}

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
