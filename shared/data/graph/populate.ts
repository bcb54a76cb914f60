import { ValidationError } from '../../errors';
import type { Relationship } from '../records/populate';
import type { Row } from '../tables/data-table';
import { type GraphRequest, relativeLabels } from './request';

/**
 * `populate` with graph parameters (docs/graph.md): every record of the response carries its referenced records,
 * the start records and every record the walk reached (relatives, tree nodes at every depth, the graph's nodes),
 * with one query per relationship for the whole response (`populate`, given all of them at once).
 */

/** The keys graph output puts inside the records themselves; a relationship embedded there would replace them. */
function keysInsideRecords(request: GraphRequest, list: boolean): string[] {
  if (request.format === 'tree') return ['children'];
  if (request.format === 'graph') return [];
  // On one record the relatives sit beside `data`; on a list each record carries its own.
  return list ? relativeLabels(request) : [];
}

/** A 400 naming `populate` when a relationship would be embedded under a key the graph output already uses. */
export function checkGraphPopulate(
  relationships: readonly Relationship[],
  request: GraphRequest,
  list: boolean,
): void {
  const taken = keysInsideRecords(request, list);
  const clash = relationships.find((relationship) => taken.includes(relationship.name));
  if (clash)
    throw ValidationError.field(
      'populate',
      `"${clash.name}" would replace the "${clash.name}" the graph output puts in each record: populate it without the graph parameters, or choose other relationship types.`,
    );
}

/** Every node of trees, at every depth. */
export function treeNodes(nodes: readonly Row[]): Row[] {
  return nodes.flatMap((node) => [node, ...treeNodes((node.children as Row[] | undefined) ?? [])]);
}

/** Records and the relatives embedded in each under `labels`. */
export function withRelatives(records: readonly Row[], labels: readonly string[]): Row[] {
  return records.flatMap((record) => [
    record,
    ...labels.flatMap((label) => (record[label] as Row[] | undefined) ?? []),
  ]);
}
