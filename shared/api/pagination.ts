import { pageSchema } from './numbers';
import type { RouteDef } from './route';

/** What a linked page reads of the request: its route, path parameters, query and headers. */
export interface PageContext<Query = unknown> {
  readonly route: Pick<RouteDef, 'path'>;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Query;
  readonly searchParams: URLSearchParams;
  readonly headers: Record<string, string | undefined>;
}

/** Query-schema fragment for `page` and `page_size` with a default and a maximum page size. */
export function pageQuery(defaultSize: number, maxSize = 100) {
  return {
    page: pageSchema,
    page_size: { type: 'integer', minimum: 1, maximum: maxSize, default: defaultSize },
  } as const;
}

export interface PageRequest {
  page: number;
  page_size: number;
}

/** The slice of `items` for a page. */
export function pageOf<T>(items: readonly T[], { page, page_size }: PageRequest): T[] {
  return items.slice((page - 1) * page_size, page * page_size);
}

export function totalPages(count: number, pageSize: number): number {
  return Math.max(1, Math.ceil(count / pageSize));
}

/** The absolute URL of this request with `page` replaced, or null when there is no such page. */
function pageUrl(ctx: PageContext, page: number | null): string | null {
  if (page === null) return null;
  const params = new URLSearchParams(ctx.searchParams);
  params.set('page', String(page));
  return `${requestOrigin(ctx.headers)}${requestPath(ctx)}?${params.toString()}`;
}

/** The first value of a header a chain of proxies may have appended to (`https, http`). */
function firstValue(value: string | undefined): string | undefined {
  const first = value?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/**
 * The scheme and host the client called: what a proxy in front says (`x-forwarded-proto`, `x-forwarded-host`),
 * else the `host` header. API Gateway always sets `x-forwarded-proto` (https); the local server sets it to http.
 */
export function requestOrigin(headers: Record<string, string | undefined>): string {
  const proto = firstValue(headers['x-forwarded-proto']) ?? 'https';
  const host = firstValue(headers['x-forwarded-host']) ?? headers.host ?? 'localhost';
  return `${proto === 'http' ? 'http' : 'https'}://${host}`;
}

function requestPath(ctx: PageContext): string {
  return ctx.route.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) =>
    encodeURIComponent(ctx.params[name] ?? ''),
  );
}

/** The `{count, next, previous, results}` page that doc 1 and doc 2 lists use. */
export function linkedPage<T>(ctx: PageContext<PageRequest>, items: readonly T[]) {
  const { page, page_size } = ctx.query;
  const pages = totalPages(items.length, page_size);
  return {
    count: items.length,
    next: pageUrl(ctx, page < pages ? page + 1 : null),
    previous: pageUrl(ctx, page > 1 ? Math.min(page - 1, pages) : null),
    results: pageOf(items, ctx.query),
  };
}
