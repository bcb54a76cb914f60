/** Search, ordering and paging of in-memory lists (each read from one bounded partition). */

type SortValue = string | number | null;

/** Case- and accent-insensitive text order; what it considers equal falls to the tie-breaker. */
const collator = new Intl.Collator('en', { sensitivity: 'base' });

/** The ordering values of a field list: each field, ascending or with a `-` prefix for descending. */
export function orderings(fields: readonly string[]): string[] {
  return fields.flatMap((field) => [field, `-${field}`]);
}

/**
 * Sorts by an ordering (`field` or `-field`) with a tie-breaker. Text compares case-insensitively; null sorts after
 * every value in ascending order (a null expiry is "never").
 */
export function sortBy<T>(
  items: readonly T[],
  ordering: string,
  fields: Readonly<Record<string, (item: T) => SortValue>>,
  tieBreaker: (item: T) => SortValue,
): T[] {
  const descending = ordering.startsWith('-');
  const field = descending ? ordering.slice(1) : ordering;
  const read = fields[field];
  if (!read) throw new Error(`Unknown ordering field ${field}`);
  const compare = (a: SortValue, b: SortValue): number => {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return collator.compare(String(a), String(b));
  };
  return [...items].sort((a, b) => {
    const order = compare(read(a), read(b));
    return (descending ? -order : order) || compare(tieBreaker(a), tieBreaker(b));
  });
}

/** Case-insensitive substring match; an absent or empty search matches everything. */
export function matches(search: string | undefined, ...values: string[]): boolean {
  if (!search) return true;
  const needle = search.toLowerCase();
  return values.some((value) => value.toLowerCase().includes(needle));
}

/** One page of a list; without a page size, the whole list. */
export function pageOf<T>(items: readonly T[], page = 1, pageSize?: number): T[] {
  if (pageSize === undefined) return [...items];
  return items.slice((page - 1) * pageSize, page * pageSize);
}
