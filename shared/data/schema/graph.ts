import type { RelationshipType, TableSchema } from '../common/model';

/**
 * The graph part of a table schema (doc 3, Table schema): whether a table has a graph, its relationship types and
 * the response keys they give traversals. Checked here, beside the rest of the schema in table-checks.ts.
 */

/** The longest relationship type name (the edge column `type` holds at most 50 characters). */
export const maxTypeLength = 50;

/** Keys of traversal responses that no relationship label may take. */
const reservedLabels = new Set(['data', 'total']);

/** Whether the table has a graph: `hierarchy: true` or `graph.enabled: true`. */
export function hasGraph(schema: TableSchema): boolean {
  return schema.hierarchy === true || schema.graph?.enabled === true;
}

/** The declared relationship types (none when the table has no graph). */
export function relationshipTypes(schema: TableSchema): RelationshipType[] {
  return hasGraph(schema) ? (schema.graph?.types ?? []) : [];
}

/** The key of descendants of this type in a response: its `inverse`, or `<name>_inverse` when it declares none. */
export function descendantsKey(type: RelationshipType): string {
  return type.inverse ?? `${type.name}_inverse`;
}

/** The key of ancestors of this type in a response: its name. */
export function ancestorsKey(type: RelationshipType): string {
  return type.name;
}

/**
 * Problems of the relationship types of a schema, as (path, message) pairs: type names unique, every label (names
 * and inverses: the response keys of traversals) distinct from the others and from the table's field names, and
 * at most 50 characters.
 */
export function graphProblems(schema: TableSchema): [string, string][] {
  const problems: [string, string][] = [];
  const types = schema.graph?.types ?? [];
  const fields = new Set(schema.fields.map((field) => field.name));
  const labels = new Map<string, string>();
  types.forEach((type, index) => {
    const path = `graph.types.${index}`;
    const named: [string, string, boolean][] = [[`${path}.name`, type.name, true]];
    if (type.inverse !== undefined) named.push([`${path}.inverse`, type.inverse, true]);
    else named.push([`${path}.name`, descendantsKey(type), false]);
    for (const [at, label, declared] of named) {
      if (declared && label.length > maxTypeLength)
        problems.push([at, `The relationship label "${label}" is longer than ${maxTypeLength} characters.`]);
      if (fields.has(label))
        problems.push([at, `The relationship label "${label}" is also a field of the table.`]);
      if (reservedLabels.has(label))
        problems.push([at, `The relationship label "${label}" is a key of graph responses.`]);
      const earlier = labels.get(label);
      if (earlier !== undefined)
        problems.push([at, `The relationship label "${label}" is already used by ${earlier}.`]);
      else labels.set(label, at);
    }
    const limits = type.constraints ?? {};
    if (limits.max_outgoing !== undefined && limits.max_outgoing < 1)
      problems.push([`${path}.constraints.max_outgoing`, 'max_outgoing must be at least 1.']);
    if (limits.max_incoming !== undefined && limits.max_incoming < 1)
      problems.push([`${path}.constraints.max_incoming`, 'max_incoming must be at least 1.']);
  });
  return problems;
}
