import { ValidationError } from '../../errors';
import { type Fragment, join, type Queryable } from '../common/fragments';
import type { FieldDef } from '../common/model';
import { systemFields } from '../common/model';
import type { DataTable, Row } from '../tables/data-table';

/**
 * Full-text search (`search=`): the table's `search_vector` (a stored generated tsvector over its declared source
 * fields, GIN-indexed) matched with `websearch_to_tsquery` in the table's text search configuration, so quoted
 * phrases, `-term` and `OR` work, with stemming and stop words. Results carry `rank` and `excerpt`.
 */

/** Columns of a search result beside the record's (names no field can take, renamed when presented). */
export const rankColumn = 'platform:rank';
export const excerptColumn = 'platform:excerpt';

/** Characters of search text: enough for any query a person types. */
export const maxSearchLength = 1000;

export interface SearchPlan {
  text: string;
  vector: FieldDef;
  language: string;
  sources: readonly string[];
}

/** The search a request asks for; a 400 on a table without a search vector. */
export function searchOf(table: DataTable, params: URLSearchParams): SearchPlan | undefined {
  const text = params.get('search');
  if (text === null) return undefined;
  const vector = table.fields.get(systemFields.searchVector);
  const source = vector?.['x-search'];
  if (!vector || !source)
    throw ValidationError.field('search', `Table "${table.name}" has no ${systemFields.searchVector} field.`);
  if (text.includes('\u0000')) throw ValidationError.field('search', 'Contains the character U+0000.');
  if (text.length > maxSearchLength)
    throw ValidationError.field('search', `At most ${maxSearchLength} characters.`);
  return { text, vector, language: source.language, sources: source.fields };
}

/** The tsquery of a search. */
function tsquery(sql: Queryable, plan: SearchPlan): Fragment {
  return sql`websearch_to_tsquery(${plan.language}::regconfig, ${plan.text})`;
}

/** The match condition of a search. */
export function searchCondition(sql: Queryable, plan: SearchPlan): Fragment {
  return sql`${sql(plan.vector.name)} @@ ${tsquery(sql, plan)}`;
}

/** `rank` and `excerpt` as extra columns of the page. */
export function searchColumns(sql: Queryable, plan: SearchPlan): Fragment {
  const document = join(
    sql,
    plan.sources.map((name) => sql`${sql(name)}`),
  );
  return sql`ts_rank(${sql(plan.vector.name)}, ${tsquery(sql, plan)}) AS ${sql(rankColumn)},
    ts_headline(${plan.language}::regconfig, concat_ws(' ', ${document}), ${tsquery(sql, plan)}) AS ${sql(excerptColumn)}`;
}

/** The order of search results: best rank first. */
export function rankOrder(sql: Queryable): Fragment {
  return sql`${sql(rankColumn)} DESC`;
}

/** A presented record with its search columns. */
export function withRank(record: Row, row: Row): Row {
  return { ...record, rank: Number(row[rankColumn]), excerpt: row[excerptColumn] ?? '' };
}
