import type { Operator } from '../../../../../client/src/index';
import { href, type Place } from '../../../place';
import type { Condition } from '../conditions';
import { operatorLabels } from '../conditions';

export type Show = 'live' | 'all' | 'deleted';
export interface Sorter {
  field: string;
  order: 'asc' | 'desc';
}

/** The records grid's view as the address holds it (`place.view`): what a reload or a shared link shows again. */
export interface GridState {
  conditions: Condition[];
  /** The sort chosen by a column header; none: the table's stated default order. */
  sorters: Sorter[];
  page: number;
  pageSize: number;
  /** The full-text search asked, or empty. */
  asked: string;
  show: Show;
}

export const pageSizes = [10, 20, 50, 100] as const;
/** At most this many filters are read from an address (a crafted link gets the first ones). */
const conditionLimit = 20;

function readConditions(text: string | undefined): Condition[] {
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const conditions: Condition[] = [];
  for (const item of parsed.slice(0, conditionLimit)) {
    if (typeof item !== 'object' || item === null) continue;
    const { field, path, operator, value } = item as Record<string, unknown>;
    if (typeof field !== 'string' || typeof operator !== 'string' || !(operator in operatorLabels)) continue;
    const keys = Array.isArray(path) ? path.filter((key): key is string => typeof key === 'string') : [];
    conditions.push({ field, path: keys, operator: operator as Operator, value });
  }
  return conditions;
}

function readSorters(text: string | undefined, fields: readonly string[]): Sorter[] {
  const [field = '', order] = (text ?? '').split('.');
  if (!fields.includes(field)) return [];
  return [{ field, order: order === 'desc' ? 'desc' : 'asc' }];
}

/** The grid's state an address's view names; anything unknown or malformed falls back to the default. */
export function readGrid(view: Record<string, string> | undefined, fields: readonly string[]): GridState {
  const page = Number(view?.page);
  const pageSize = Number(view?.size);
  const show = view?.show;
  return {
    conditions: readConditions(view?.filter),
    sorters: readSorters(view?.sort, fields),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    pageSize: pageSizes.find((size) => size === pageSize) ?? 20,
    asked: (view?.search ?? '').slice(0, 500),
    show: show === 'all' || show === 'deleted' ? show : 'live',
  };
}

/** The address's view of a grid state: only what differs from the default, so a plain table stays `#/…/t/books`. */
export function writeGrid(state: GridState): Record<string, string> {
  const view: Record<string, string> = {};
  if (state.conditions.length) view.filter = JSON.stringify(state.conditions);
  const sorter = state.sorters[0];
  if (sorter) view.sort = `${sorter.field}.${sorter.order}`;
  if (state.asked) view.search = state.asked;
  if (state.show !== 'live') view.show = state.show;
  if (state.page !== 1) view.page = String(state.page);
  if (state.pageSize !== 20) view.size = String(state.pageSize);
  return view;
}

/** Goes to the grid state: a new address (a step of the browser's history), which the place follows. */
export function goToGrid(place: Place, state: GridState): void {
  location.hash = href({ ...place, view: writeGrid(state) });
}
