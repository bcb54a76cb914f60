import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { TreeNode as ClientTreeNode, Edge } from '../../../../../client/src/index';
import { Failure } from '../../../kit/parts';
import { href, type Place } from '../../../place';
import { errorText } from '../../../queries/client';
import type { May } from '../../../queries/table-types';
import {
  type AnyRecord,
  graphTypes,
  inverseOf,
  keyOf,
  recordLabel,
  recordsOf,
  type TableInfo,
  useRefresh,
} from '../../../queries/tables';
import { AddEdge } from './add-edge';

/**
 * One record: its fields (references populated, as links), and on a table with a graph its relationships:
 * ancestors and descendants per type, the tree it belongs to, its edges with "Remove", and a form that adds an
 * edge to another record found by its label.
 */
export type TreeNode = ClientTreeNode<AnyRecord>;

export const isNode = (value: unknown): value is TreeNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The records of one relationship in a `related` answer (each with its `_depth`). */
export const nodesOf = (value: unknown): TreeNode[] => (Array.isArray(value) ? value.filter(isNode) : []);

export function Relationships({
  place,
  info,
  record,
  may,
}: {
  place: Place;
  info: TableInfo;
  record: AnyRecord;
  may: May;
}) {
  const types = graphTypes(info);
  const key = keyOf(info);
  const id = String(record[key]);
  const table = recordsOf(place, info.name);
  const refresh = useRefresh(place);
  const [removing, setRemoving] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const relatives = useQuery({
    queryKey: ['record', place.site, place.app, info.name, id, 'relatives', info.version],
    queryFn: () => table.related(id, 'both'),
  });
  const tree = useQuery({
    queryKey: ['record', place.site, place.app, info.name, id, 'tree', info.version],
    queryFn: () => table.tree({ id }),
  });
  const edges = useQuery({
    queryKey: ['record', place.site, place.app, info.name, id, 'edges', info.version],
    queryFn: async () => {
      const [outgoing, incoming] = await Promise.all([
        table.edges.list({ from_id: id, page_size: 100 }),
        table.edges.list({ to_id: id, page_size: 100 }),
      ]);
      return { outgoing: outgoing.data, incoming: incoming.data, total: outgoing.total + incoming.total };
    },
  });
  // Labels of the records at the other end of the edges: the relatives and the tree name them all.
  const labels = new Map<string, string>();
  const learn = (node: AnyRecord) => labels.set(String(node[key]), recordLabel(info, node));
  for (const value of Object.values(relatives.data ?? {})) for (const node of nodesOf(value)) learn(node);
  const walk = (nodes: TreeNode[]) => {
    for (const node of nodes) {
      learn(node);
      walk(node.children ?? []);
    }
  };
  walk(tree.data?.data ?? []);
  const nameOf = (other: string | number) => labels.get(String(other)) ?? String(other);

  async function removeEdge(edge: Edge) {
    try {
      await table.edges.delete([edge.id]);
      await refresh('records');
      setNotice('Relationship removed.');
    } catch (error) {
      setNotice(errorText(error).message);
    }
    setRemoving(null);
  }
  const edgeRow = (edge: Edge, outgoing: boolean) => {
    const sentence = outgoing
      ? `${recordLabel(info, record)} ${edge.type} ${nameOf(edge.to_id)}`
      : `${nameOf(edge.from_id)} ${edge.type} ${recordLabel(info, record)}`;
    return (
      <tr key={edge.id}>
        <td>
          {outgoing ? (
            'this record'
          ) : (
            <a href={href({ ...place, record: String(edge.from_id) })}>{nameOf(edge.from_id)}</a>
          )}
        </td>
        <td>{edge.type}</td>
        <td>
          {outgoing ? (
            <a href={href({ ...place, record: String(edge.to_id) })}>{nameOf(edge.to_id)}</a>
          ) : (
            'this record'
          )}
        </td>
        {may.delete && (
          <td className="actions">
            {removing === edge.id ? (
              <>
                <button type="button" className="danger" onClick={() => removeEdge(edge)}>
                  Confirm removing: {sentence}
                </button>
                <button type="button" onClick={() => setRemoving(null)}>
                  Keep it
                </button>
              </>
            ) : (
              <button type="button" onClick={() => setRemoving(edge.id)}>
                Remove relationship: {sentence}
              </button>
            )}
          </td>
        )}
      </tr>
    );
  };

  return (
    <section aria-labelledby="relationships-title">
      <h2 id="relationships-title">Relationships</h2>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {relatives.error ? <Failure error={relatives.error} /> : null}
      <div className="relatives">
        {types.map((type) => (
          <div key={type.name}>
            <Relatives
              place={place}
              info={info}
              title={`Ancestors (${type.name})`}
              nodes={nodesOf(relatives.data?.[type.name])}
            />
            <Relatives
              place={place}
              info={info}
              title={`Descendants (${inverseOf(type)})`}
              nodes={nodesOf(relatives.data?.[inverseOf(type)])}
            />
          </div>
        ))}
      </div>
      <h3 id="tree-title">Tree</h3>
      {tree.error ? <Failure error={tree.error} /> : null}
      {tree.data && (
        <ul className="record-tree" aria-labelledby="tree-title">
          {tree.data.data.map((node, index) => (
            <TreeItem key={index} node={node} place={place} info={info} current={id} />
          ))}
        </ul>
      )}
      <h3>Edges of this record</h3>
      {edges.error ? <Failure error={edges.error} /> : null}
      {edges.data && edges.data.total === 0 && <p className="muted">None.</p>}
      {edges.data && edges.data.total > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Edges from and to {recordLabel(info, record)}</caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">Type</th>
                <th scope="col">To</th>
                {may.delete && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {edges.data.outgoing.map((edge) => edgeRow(edge, true))}
              {edges.data.incoming.map((edge) => edgeRow(edge, false))}
            </tbody>
          </table>
        </div>
      )}
      {may.change && <AddEdge place={place} info={info} record={record} onDone={setNotice} />}
    </section>
  );
}

export function Relatives({
  place,
  info,
  title,
  nodes,
}: {
  place: Place;
  info: TableInfo;
  title: string;
  nodes: TreeNode[];
}) {
  const id = useId();
  const key = keyOf(info);
  return (
    <div className="relatives-list">
      <h3 id={id}>{title}</h3>
      {nodes.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ol aria-labelledby={id}>
          {nodes.map((node) => (
            <li key={String(node[key])}>
              <a href={href({ ...place, record: String(node[key]) })}>{recordLabel(info, node)}</a>{' '}
              <span className="muted">level {node._depth}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function TreeItem({
  node,
  place,
  info,
  current,
}: {
  node: TreeNode;
  place: Place;
  info: TableInfo;
  current: string;
}) {
  const key = String(node[keyOf(info)]);
  const label = recordLabel(info, node);
  return (
    <li>
      {key === current ? (
        <strong aria-current="true">{label}</strong>
      ) : (
        <a href={href({ ...place, record: key })}>{label}</a>
      )}
      {node._relationship_type && <span className="muted"> ({node._relationship_type})</span>}
      {node._repeated && <span className="muted"> (also above)</span>}
      {node.children && node.children.length > 0 && (
        <ul>
          {node.children.map((child, index) => (
            <TreeItem key={index} node={child} place={place} info={info} current={current} />
          ))}
        </ul>
      )}
    </li>
  );
}
