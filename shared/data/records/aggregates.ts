import { plannedPerExecution, type Sql } from '../../sql/client';
import { type Fragment, join, type Queryable } from '../common/fragments';
import {
  type AggregationPlan,
  aggregateSql,
  aggregateValue,
  groupValues,
  havingSql,
} from '../query/aggregation';
import { type RecordQuery, whereClause } from '../query/conditions';
import type { Window } from '../query/paging';
import {
  catalogVersionColumn,
  type DataTable,
  type Row,
  readTable,
  type TableScope,
  versioned,
} from '../tables/data-table';
import { from } from './statements';

/** Aggregation reads: filters apply first, then grouping and `_having` (doc 3, Aggregation). */

export type AggregateResult = { data: []; aggregates: Row } | { data: Row[]; total: number };

/** Result columns are positional (`platform:a0`, `platform:g0`): no aggregate alias or field name reaches SQL text. */
const aggregateColumn = (index: number) => `platform:a${index}`;
const groupColumn = (index: number) => `platform:g${index}`;
/** Marks a real row of a versioned read (a grouped read of no groups yields one row of nulls). */
const rowColumn = 'platform:row';
const totalColumn = 'platform:total';

function selectList(sql: Queryable, plan: AggregationPlan): Fragment {
  const parts = [
    sql`true AS ${sql(rowColumn)}`,
    ...plan.groupBy.map((field, index) => sql`${sql(field.name)} AS ${sql(groupColumn(index))}`),
    ...plan.aggregates.map(
      (aggregate, index) => sql`${aggregateSql(sql, aggregate)} AS ${sql(aggregateColumn(index))}`,
    ),
  ];
  return join(sql, parts);
}

function aggregatesOfRow(plan: AggregationPlan, row: Row): Row {
  const out: Row = {};
  plan.aggregates.forEach((aggregate, index) => {
    out[aggregate.alias] = aggregateValue(aggregate, row[aggregateColumn(index)]);
  });
  return out;
}

function groupedStatement(
  sql: Queryable,
  table: DataTable,
  where: Fragment,
  plan: AggregationPlan,
  extra?: Fragment,
): Fragment {
  const groups = join(
    sql,
    plan.groupBy.map((field) => sql`${sql(field.name)}`),
  );
  return sql`SELECT ${selectList(sql, plan)}${extra ?? sql``} FROM ${from(sql, table)} WHERE ${where}
    GROUP BY ${groups} HAVING ${havingSql(sql, plan.having)}`;
}

/** Aggregates of the matching records, or of each group of them (a page of groups, `total` counting all groups). */
export async function aggregateRecords(
  sql: Sql,
  scope: TableScope,
  name: string,
  build: (table: DataTable) => { query: RecordQuery; aggregation: AggregationPlan },
  window: Window,
): Promise<AggregateResult> {
  return readTable<AggregateResult>(sql, scope, name, async (table) => {
    const { query, aggregation: plan } = build(table);
    const where = whereClause(sql, table, query);
    if (plan.groupBy.length === 0) {
      const inner = sql`SELECT ${selectList(sql, plan)} FROM ${from(sql, table)} WHERE ${where}
        HAVING ${havingSql(sql, plan.having)}`;
      const rows = await sql`${versioned(sql, table, inner)}`;
      const row = rows[0] ?? {};
      // Without groups, a HAVING that fails leaves no row: the aggregates are then empty.
      const aggregates = row[rowColumn] ? aggregatesOfRow(plan, row) : {};
      return { current: row[catalogVersionColumn] === table.entry.version, value: { data: [], aggregates } };
    }
    // The number of groups rides along as a window count: one statement answers the page and the total.
    const grouped = groupedStatement(sql, table, where, plan, sql`, count(*) OVER () AS ${sql(totalColumn)}`);
    const order = join(
      sql,
      plan.groupBy.map((_field, index) => sql`${sql(groupColumn(index))}`),
    );
    // Planned for its limit every time: a generic plan took an index-order aggregate twice as slow.
    const rows = await plannedPerExecution(
      sql`${versioned(sql, table, sql`${grouped} ORDER BY ${order} LIMIT ${window.limit} OFFSET ${window.offset}`)}`,
    );
    const found = rows.filter((row) => row[rowColumn]);
    const data = found.map((row) => ({
      ...groupValues(plan.groupBy, row, groupColumn),
      ...aggregatesOfRow(plan, row),
    }));
    let total = Number(found[0]?.[totalColumn] ?? 0);
    // A page past the last group has no row to carry the count: only then is it asked for on its own.
    if (found.length === 0 && window.offset > 0) {
      const [counted] = await plannedPerExecution(
        sql`SELECT count(*)::integer AS total FROM (${groupedStatement(sql, table, where, plan)}) AS g`,
      );
      total = Number(counted?.total ?? 0);
    }
    return { current: rows[0]?.[catalogVersionColumn] === table.entry.version, value: { data, total } };
  });
}
