import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { ErrorSummary, focusFirstError, SelectField, TextField } from '../../../kit/fields';
import type { Place } from '../../../place';
import { errorText } from '../../../queries/client';
import {
  type AnyRecord,
  graphTypes,
  keyOf,
  labelField,
  recordLabel,
  recordsOf,
  type TableInfo,
  useRefresh,
} from '../../../queries/tables';

export function AddEdge({
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
