import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { href, type Place } from '../place';
import { ApiError, answerOf, clientFor, errorText } from '../queries/client';
import { SelectField } from './fields';

/** A few pieces the screens outside the data tables share. */

export type Problem = { message: string; fields: Record<string, string[]> };

/**
 * One action's state: busy while it runs, the API's error (by field) when refused, a notice when done. The
 * notice goes to a live region, so a screen reader hears it.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  async function run(work: () => Promise<string | undefined>): Promise<boolean> {
    setBusy(true);
    setError(null);
    setNotice('');
    try {
      const said = await work();
      if (said) setNotice(said);
      return true;
    } catch (failure) {
      setError(errorText(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }
  const at = (...fields: string[]) =>
    fields
      .flatMap((field) => error?.fields[field] ?? [])
      .join(' ')
      .trim() || undefined;
  return { busy, error, notice, setNotice, run, at };
}

/** The general message of a refusal, when no field of the form shows it. */
export function FormError({ error, shown = [] }: { error: Problem | null; shown?: string[] }) {
  if (!error) return null;
  const elsewhere = Object.keys(error.fields).filter((field) => !shown.includes(field));
  if (Object.keys(error.fields).length > 0 && elsewhere.length === 0) return null;
  const details = elsewhere.map((field) => `${field}: ${(error.fields[field] ?? []).join(' ')}`);
  return (
    <div role="alert" className="error">
      {[error.message, ...details].join(' ')}
    </div>
  );
}

export function Notice({ text }: { text: string }) {
  return (
    <p aria-live="polite" className="status">
      {text}
    </p>
  );
}

/** A delete that asks once more: the first press shows "Confirm", the second does it. */
export function ConfirmButton({
  label,
  what,
  onConfirm,
}: {
  label: string;
  what: string;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button
        type="button"
        className="danger"
        onClick={() => setAsking(true)}
        aria-label={`${label} ${what}`}
      >
        {label}
      </button>
    );
  return (
    <>
      <button
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
        aria-label={`Confirm: ${label.toLowerCase()} ${what}`}
      >
        Confirm
      </button>
      <button type="button" onClick={() => setAsking(false)} aria-label={`Keep ${what}`}>
        Keep
      </button>
    </>
  );
}

/** The site's apps, for the screens that belong to an app (access, events). */
export function useApps(site: string, enabled = true) {
  return useQuery({
    queryKey: ['apps', site],
    enabled,
    queryFn: () => answerOf(clientFor(site).GET('/api/apps/', { params: { query: { page_size: 100 } } })),
  });
}

/**
 * Which app of the site a screen shows: the address's app, else the first. Changing it changes the address, so
 * a reload or a shared link shows the same app.
 */
export function AppPicker({ place, section }: { place: Place; section: string }) {
  const apps = useApps(place.site ?? '');
  const list = apps.data?.results ?? [];
  const chosen = place.app ?? list[0]?.slug ?? '';
  if (list.length === 0) return apps.isLoading ? <p>Loading…</p> : <p>This site has no app yet.</p>;
  return (
    <div className="toolbar">
      <SelectField
        label="App"
        value={chosen}
        options={list.map((app): [string, string] => [app.slug, app.name])}
        onChange={(app) => {
          location.hash = href({ org: place.org, site: place.site, app, section });
        }}
      />
    </div>
  );
}

/** The app an app's screen shows: the address's, else the site's first. */
export function useChosenApp(place: Place): string | undefined {
  const apps = useApps(place.site ?? '');
  return place.app ?? apps.data?.results[0]?.slug;
}

export const toggle = <T,>(list: readonly T[], value: T, on: boolean): T[] =>
  on ? [...list.filter((item) => item !== value), value] : list.filter((item) => item !== value);

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
