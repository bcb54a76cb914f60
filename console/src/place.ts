/**
 * Where the person is: organization, site, app, table, record and section. It lives in the address's hash
 * (`#/o/<org>/s/<site>/a/<app>/t/<table>`), so the server serves one page and a reload or a shared link lands on
 * the same screen. Every layer names a place, so this module imports nothing.
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
  /**
   * The records grid's view of the table (filters, sort, page, page size, search, deleted records), after a `?`
   * (`#/o/…/t/books?sort=title.desc&page=2`): a reload or a shared link shows the same page of the same records.
   */
  view?: Record<string, string>;
}

/** How many characters of the view the address keeps: a crafted link cannot make the console parse megabytes. */
export const viewLimit = 4096;

/** A part of the address as typed: a malformed escape (a crafted link) is kept as it is, never a blank page. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The place an address's hash names; `sections` are the words of the sections (app/sections.tsx). */
export function parsePlace(hash: string, sections: readonly string[]): Place {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path.split('/').filter(Boolean).map(decodePart);
  const place: Place = {};
  const view = query.length <= viewLimit ? Object.fromEntries(new URLSearchParams(query)) : {};
  if (Object.keys(view).length) place.view = view;
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
  const view = place.table && place.view ? new URLSearchParams(place.view).toString() : '';
  return `#/${parts.map(encodeURIComponent).join('/')}${view ? `?${view}` : ''}`;
}
