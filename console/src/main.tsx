import { Refine } from '@refinedev/core';
import { StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { authProvider, dataProvider } from '../../client/src/refine';
import { usePlace } from './app/sections';
import { Shell } from './app/shell';
import { clientFor } from './queries/client';
import './console.css';
import './fit.css';
import './platform.css';
import './dark.css';

/**
 * The console's entry (docs/console.md): refine (headless) over the typed client's providers, React, plain
 * accessible HTML; the place (app/place.ts) picks the providers' site and app, the shell (app/shell.tsx) the rest.
 */
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
