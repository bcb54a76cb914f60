import { type FormEvent, useId, useState } from 'react';
import { CheckField, ErrorSummary, focusFirstError, TextField } from '../../../kit/fields';
import type { Place } from '../../../place';
import { errorText } from '../../../queries/client';
import {
  graphTypes,
  type RelationshipType,
  type TableInfo,
  tableCalls,
  useRefresh,
} from '../../../queries/tables';
import type { Problem } from './changes';

export function RelationshipTypes({
  place,
  info,
  canConfigure,
}: {
  place: Place;
  info: TableInfo;
  canConfigure: boolean;
}) {
  const id = useId();
  const refresh = useRefresh(place);
  const types = graphTypes(info);
  const [name, setName] = useState('');
  const [inverse, setInverse] = useState('');
  const [tree, setTree] = useState(false);
  const [problem, setProblem] = useState<Problem>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  async function change(next: RelationshipType[], done: string): Promise<boolean> {
    setBusy(true);
    setProblem(null);
    try {
      await tableCalls(place, info.name).setGraph({ enabled: next.length > 0, types: next });
      await refresh();
      setNotice(done);
      return true;
    } catch (error) {
      setProblem(errorText(error));
      focusFirstError(id);
      return false;
    } finally {
      setBusy(false);
      setRemoving(null);
    }
  }
  async function add(event: FormEvent) {
    event.preventDefault();
    const type: RelationshipType = {
      name: name.trim(),
      ...(inverse.trim() ? { inverse: inverse.trim() } : {}),
      ...(tree ? { constraints: { max_outgoing: 1 } } : {}),
    };
    if (await change([...types, type], `Relationship type ${type.name} added.`)) {
      setName('');
      setInverse('');
      setTree(false);
    }
  }
  // The API names the position of the type in the request: the new one is last.
  const at = (part: 'name' | 'inverse') =>
    Object.entries(problem?.fields ?? {})
      .filter(([key]) => key.endsWith(`graph.types.${types.length}.${part}`))
      .flatMap(([, messages]) => messages)
      .join(' ') || undefined;
  const shown = Object.keys(problem?.fields ?? {}).filter((key) =>
    new RegExp(`graph\\.types\\.${types.length}\\.(name|inverse)$`).test(key),
  );

  return (
    <>
      <h3>Relationship types</h3>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {types.length ? (
        <ul className="schema-list">
          {types.map((type) => (
            <li key={type.name}>
              {type.name}
              {` (inverse ${type.inverse ?? `${type.name}_inverse`})`}
              {type.constraints?.max_outgoing === 1 ? ', one parent at most' : ''}{' '}
              {canConfigure &&
                (removing === type.name ? (
                  <>
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() =>
                        change(
                          types.filter((other) => other.name !== type.name),
                          `Relationship type ${type.name} removed.`,
                        )
                      }
                    >
                      Confirm removing type {type.name}
                    </button>
                    <button type="button" onClick={() => setRemoving(null)}>
                      Keep it
                    </button>
                  </>
                ) : (
                  <button type="button" onClick={() => setRemoving(type.name)}>
                    Remove type {type.name}
                  </button>
                ))}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{info.schema.hierarchy ? 'A hierarchy (parent and children).' : 'None.'}</p>
      )}
      {canConfigure && (
        <form className="panel" id={id} onSubmit={add} aria-labelledby={`${id}-title`} noValidate>
          <h4 id={`${id}-title`}>Add a relationship type</h4>
          <ErrorSummary error={problem} shown={shown} />
          <div className="field-row">
            <TextField label="Type name" value={name} onChange={setName} error={at('name')} required />
            <TextField
              label="Inverse name (optional)"
              value={inverse}
              onChange={setInverse}
              error={at('inverse')}
              hint="The name of the other direction: manager → direct_reports."
            />
            <CheckField label="One parent at most (a tree)" checked={tree} onChange={setTree} />
            <button type="submit" disabled={busy}>
              Add relationship type
            </button>
          </div>
        </form>
      )}
    </>
  );
}
