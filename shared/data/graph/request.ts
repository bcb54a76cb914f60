import { BadRequestError, ValidationError } from '../../errors';
import type { RelationshipType } from '../common/model';
import type { Visibility } from '../query/conditions';
import { listParameter } from '../records/reads';
import { ancestorsKey, descendantsKey, hasGraph, relationshipTypes } from '../schema/graph';
import type { DataTable } from '../tables/data-table';
import type { Direction } from './traversal';

/** The graph parameters of a read (doc 3, Graph query parameters), checked against the table's graph. */

export type Include = 'descendants' | 'ancestors' | 'both';
export type GraphFormat = 'tree' | 'graph';

/** The graph parameters as the route's query schema reads them. */
export interface GraphQuery {
  include?: Include;
  format?: GraphFormat;
  depth?: number;
}

export interface GraphRequest {
  include: Include | undefined;
  format: GraphFormat | undefined;
  depth: number;
  /** The deepest walk the server allows (walking up to a natural root goes this far). */
  maxDepth: number;
  /** The most records (and edges) one traversal may visit: beyond, a 400 naming `depth` (DATA_SERVICE_GRAPH_MAX_RECORDS). */
  maxRecords: number;
  types: RelationshipType[];
  /** Soft-deleted records are walked through and shown (`include_deleted` or `only_deleted`). */
  deleted: boolean;
}

/** The default `depth`: 10, or the server maximum when that is lower. */
const defaultDepth = 10;

/** Whether a read asks for the graph at all. */
export function asksForGraph(query: GraphQuery): boolean {
  return query.include !== undefined || query.format !== undefined;
}

/**
 * Refuses a depth beyond the server's maximum with the body the spec shows: `{error: 'Validation failed', detail}`
 * (400). Checked before anything is read.
 */
export function checkDepth(query: GraphQuery, maxDepth: number): number {
  const depth = query.depth ?? Math.min(defaultDepth, maxDepth);
  if (depth > maxDepth)
    throw new BadRequestError({
      code: 'depth_exceeded',
      message: `depth exceeds maximum allowed (${maxDepth})`,
      title: 'Validation failed',
    });
  return depth;
}

/**
 * The relationship types a read selects: `relationship_type` (repeatable or comma-separated), or its deprecated
 * alias `graph_types`; all declared types when neither is given. An unknown name is a 400 naming the parameter.
 */
function selectedTypes(table: DataTable, params: URLSearchParams): RelationshipType[] {
  const declared = relationshipTypes(table.definition);
  const parameter = params.has('relationship_type') ? 'relationship_type' : 'graph_types';
  const names = [...listParameter(params, 'relationship_type'), ...listParameter(params, 'graph_types')];
  if (names.length === 0) return declared;
  const unknown = names.filter((name) => !declared.some((type) => type.name === name));
  if (unknown.length > 0)
    throw ValidationError.field(
      parameter,
      `Unknown relationship type${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')} of table "${table.name}".`,
    );
  return declared.filter((type) => names.includes(type.name));
}

/** The graph request of a read, checked against the table; 400 when the table has no graph. */
export function graphRequestOf(
  table: DataTable,
  query: GraphQuery,
  params: URLSearchParams,
  options: { maxDepth: number; maxRecords: number; visibility: Visibility },
): GraphRequest {
  if (!hasGraph(table.definition) || !table.entry.layout.edges) {
    const parameter = query.format !== undefined ? 'format' : 'include';
    throw ValidationError.field(parameter, `Table "${table.name}" has no graph.`);
  }
  return {
    include: query.include,
    format: query.format,
    depth: checkDepth(query, options.maxDepth),
    maxDepth: options.maxDepth,
    maxRecords: options.maxRecords,
    types: selectedTypes(table, params),
    deleted: options.visibility !== 'live',
  };
}

/** The walks `include` asks for: descendants walk down, ancestors up, both both. */
export function directions(request: GraphRequest): Direction[] {
  const include = request.include ?? 'descendants';
  if (include === 'both') return ['down', 'up'];
  return include === 'ancestors' ? ['up'] : ['down'];
}

/** The response key of a type's relatives in one direction: its inverse name down, its name up. */
export function labelOf(type: RelationshipType, direction: Direction): string {
  return direction === 'down' ? descendantsKey(type) : ancestorsKey(type);
}

/** The response keys of a type in the walked directions. */
export function labels(type: RelationshipType, walked: readonly Direction[]): [Direction, string][] {
  return walked.map((direction) => [direction, labelOf(type, direction)]);
}

/** Every key a request's relatives are put under (one per selected type and walked direction). */
export function relativeLabels(request: GraphRequest): string[] {
  const walked = directions(request);
  return request.types.flatMap((type) => labels(type, walked).map(([, label]) => label));
}
