import type { HttpResult } from '../../api/result';
import { filtersFromQuery, type Visibility } from '../query/conditions';
import { sortOf, type Window } from '../query/paging';
import { searchOf } from '../query/search';
import type { DataTable, Row } from '../tables/data-table';
import { populateOf } from './populate';
import type { ListPlan } from './reads';

/** The records list of the query language: the plan a query string asks for, and the response it gets. */

/** Filters, sort, search and populate of a list request, checked against the table's schema. */
export function listPlanOf(table: DataTable, params: URLSearchParams, visibility: Visibility): ListPlan {
  const plan: ListPlan = {
    query: { conditions: filtersFromQuery(table, params), visibility },
    sort: sortOf(table, params),
    populate: populateOf(table, params),
  };
  const search = searchOf(table, params);
  if (search) plan.search = search;
  return plan;
}

/**
 * `{data, total, page, page_size}` for page-based paging, `{data, total, meta}` for `_start`/`_end` and
 * `limit`/`offset`; `X-Total-Count` carries the total either way.
 */
export function listResponse(result: { records: Row[]; total: number }, window: Window): HttpResult {
  const { records, total } = result;
  const headers = { 'x-total-count': String(total) };
  if (window.page) return { status: 200, headers, body: { data: records, total, ...window.page } };
  const meta = {
    offset: window.offset,
    limit: window.limit,
    count: records.length,
    has_more: window.offset + records.length < total,
  };
  return { status: 200, headers, body: { data: records, total, meta } };
}
