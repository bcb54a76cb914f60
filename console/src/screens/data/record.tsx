import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import type { TreeNode as ClientTreeNode, Edge } from '../../../../client/src/index';
import { ErrorSummary, focusFirstError, SelectField, TextField } from '../../kit/fields';
import { Failure } from '../../kit/parts';
import { href, type Place } from '../../place';
import { errorText } from '../../queries/client';
import type { May } from '../../queries/table-types';
import {
  type AnyRecord,
  displayValue,
  foreignKeysOf,
  graphTypes,
  inverseOf,
  keyOf,
  labelField,
  recordLabel,
  recordsOf,
  referencedKey,
  referencedRecord,
  type TableInfo,
  useRefresh,
} from '../../queries/tables';

/**
 * One record: its fields (references populated, as links), and on a table with a graph its relationships:
 * ancestors and descendants per type, the tree it belongs to, its edges with "Remove", and a form that adds an
 * edge to another record found by its label.
 */

type TreeNode = ClientTreeNode<AnyRecord>;

const isNode = (value: unknown): value is TreeNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** The records of one relationship in a `related` answer (each with its `_depth`). */
const nodesOf = (value: unknown): TreeNode[] => (Array.isArray(value) ? value.filter(isNode) : []);

export function RecordView({
  place,
  info,
  tables,
  may,
}: {
  place: Place;
  info: TableInfo;
  tables: TableInfo[];
  may: May;
}) {
  const id = place.record ?? '';
  const references = foreignKeysOf(info);
  const record = useQuery({
    queryKey: ['record', place.site, place.app, info.name, id, info.version],
    queryFn: () =>
      recordsOf(place, info.name).get(id, {
        includeDeleted: true,
        ...(references.length ? { populate: references.map((reference) => reference.relation) } : {}),
      }),
  });
  if (record.isLoading) return <p>Loading…</p>;
  if (record.error || !record.data) return <Failure error={record.error} />;
  const data = record.data;
  const label = recordLabel(info, data);
  const referenceOf = new Map(references.map((reference) => [reference.field, reference]));
  return (
    <>
      <h1>
        Record {label} <span className="muted">of {info.name}</span>
      </h1>
      <p>
        <a href={href({ ...place, record: undefined })}>← Records of {info.name}</a>
      </p>
      {data.is_deleted === true && (
        <p className="notice">This record is deleted (it can be restored from the grid).</p>
      )}
      <dl className="record">
        {info.schema.fields
          .filter((field) => field.type !== 'tsvector')
          .map((field) => {
            const reference = referenceOf.get(field.name);
            let shown: React.ReactNode = displayValue(data[field.name]);
            if (reference) {
              const target = tables.find((table) => table.name === reference.table);
              const key = referencedKey(data, reference, target);
              const embedded = referencedRecord(data, reference);
              shown = key ? (
                <a href={href({ ...place, table: reference.table, record: key })}>
                  {embedded ? recordLabel(target, embedded) : key}
                </a>
              ) : (
                ''
              );
            }
            return (
              <div key={field.name}>
                <dt>{field.name}</dt>
                <dd>{shown}</dd>
              </div>
            );
          })}
      </dl>
      {graphTypes(info).length > 0 && (
        <Relationships
          place={place}
          info={info}
          record={data}
          may={data.is_deleted === true ? { configure: false, change: false, delete: false } : may}
        />
      )}
    </>
  );
}

function Relationships({
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

function Relatives({
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

function TreeItem({
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

function AddEdge({
  place,
  info,
  record,
  onDone,
}: {
  place: Place;
  info: TableInfo;
  record: AnyRecord;
  onDone: (notice: string) => void;
}) {
  const formId = useId();
  const types = graphTypes(info);
  const key = keyOf(info);
  const id = String(record[key]);
  const labelName = labelField(info);
  const refresh = useRefresh(place);
  const [type, setType] = useState(types[0]?.name ?? '');
  const [direction, setDirection] = useState<'out' | 'in'>('out');
  const [find, setFind] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const [other, setOther] = useState('');
  const [problem, setProblem] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [busy, setBusy] = useState(false);
  const found = useQuery({
    queryKey: ['record', place.site, place.app, info.name, 'find', asked],
    enabled: asked !== null,
    queryFn: () =>
      recordsOf(place, info.name).list({
        ...(labelName && asked ? { filter: { [labelName]: { contains: asked } } } : {}),
        paging: { page: 1, pageSize: 20 },
      }),
  });
  const candidates = (found.data?.data ?? []).filter((candidate) => String(candidate[key]) !== id);
  const chosen = candidates.some((candidate) => String(candidate[key]) === other)
    ? other
    : String(candidates[0]?.[key] ?? '');
  const me = recordLabel(info, record);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const target = labelName ? chosen : find.trim();
    if (!target) return;
    setBusy(true);
    setProblem(null);
    const edge =
      direction === 'out' ? { from_id: id, to_id: target, type } : { from_id: target, to_id: id, type };
    try {
      await recordsOf(place, info.name).edges.create([edge]);
      await refresh('records');
      onDone('Relationship added.');
    } catch (error) {
      // The API names records by key: the console says their labels.
      const other = candidates.find((candidate) => String(candidate[key]) === target);
      const named = (text: string) =>
        text
          .replaceAll(`"${id}"`, `"${me}"`)
          .replaceAll(`"${target}"`, `"${other ? recordLabel(info, other) : target}"`);
      const { message, fields } = errorText(error);
      setProblem({
        message: named(message),
        fields: Object.fromEntries(
          Object.entries(fields).map(([name, messages]) => [name, messages.map(named)]),
        ),
      });
      focusFirstError(formId);
    } finally {
      setBusy(false);
    }
  }
  // Bulk answers key errors `<index>.<field>`: the other record is `to_id` going out, `from_id` coming in.
  const at = (field: string) =>
    problem?.fields[`0.${field}`]?.join(' ') ?? problem?.fields[field]?.join(' ') ?? undefined;
  const otherField = direction === 'out' ? 'to_id' : 'from_id';
  const shown = ['type', '0.type', otherField, `0.${otherField}`];
  return (
    <form className="panel" id={formId} onSubmit={submit} aria-labelledby={`${formId}-title`} noValidate>
      <h3 id={`${formId}-title`}>Add a relationship</h3>
      <ErrorSummary error={problem} shown={shown} />
      <div className="field-row">
        <SelectField
          label="Relationship type"
          value={type}
          options={types.map((item): [string, string] => [item.name, item.name])}
          onChange={setType}
          error={at('type')}
        />
        <SelectField
          label="Direction"
          value={direction}
          options={[
            ['out', `${me}'s ${type} is the other record`],
            ['in', `the other record's ${type} is ${me}`],
          ]}
          onChange={(value) => setDirection(value as 'out' | 'in')}
        />
      </div>
      <div className="field-row">
        <TextField
          label={labelName ? `Find the other record by ${labelName}` : "The other record's key"}
          value={find}
          onChange={setFind}
          error={labelName ? undefined : at(otherField)}
        />
        {labelName && (
          <button type="button" onClick={() => setAsked(find.trim())}>
            Find
          </button>
        )}
        {labelName && asked !== null && (
          <SelectField
            label="Other record"
            value={chosen}
            options={
              candidates.length
                ? candidates.map((candidate): [string, string] => [
                    String(candidate[key]),
                    `${recordLabel(info, candidate)} (${String(candidate[key]).slice(0, 8)})`,
                  ])
                : [['', found.isFetching ? 'Looking…' : 'No record found']]
            }
            onChange={setOther}
            error={at(otherField)}
          />
        )}
        <button type="submit" disabled={busy || (labelName ? !chosen : !find.trim())}>
          Add relationship
        </button>
      </div>
    </form>
  );
}
