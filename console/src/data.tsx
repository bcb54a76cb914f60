import {
  type CrudFilter,
  type LogicalFilter,
  useCreate,
  useDelete,
  useList,
  useUpdate,
} from '@refinedev/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { clientFor, errorText, get, send } from './api';
import { href, type Place } from './main';
import { type Abilities, Failure } from './shell';

/** The data screens: an app's tables, a table's schema, its records (refine's data provider). */

export interface FieldDef {
  name: string;
  type: string;
  format?: string;
  constraints?: Record<string, unknown> & { required?: boolean; enum?: unknown[] };
  default?: unknown;
}
interface ForeignKey {
  fields: string | string[];
  reference: { resource: string; fields: string | string[] };
  'x-actions'?: { onDelete?: string };
}
interface TableSchema {
  fields: FieldDef[];
  primaryKey?: string | string[];
  foreignKeys?: ForeignKey[];
  uniqueKeys?: (string | string[])[];
  indexes?: { name?: string; fields: string[]; unique?: boolean }[];
  graph?: { enabled?: boolean; types?: { name: string; inverse?: string }[] };
  hierarchy?: { enabled?: boolean };
}
interface TableInfo {
  name: string;
  description: string;
  schema: TableSchema;
  version: number;
}
type AnyRecord = Record<string, unknown>;

const types = [
  'string',
  'integer',
  'number',
  'boolean',
  'date',
  'time',
  'datetime',
  'object',
  'array',
  'json',
];
/** Fields the API sets itself: shown, never in a form. */
const readOnly = new Set(['created_at', 'updated_at', 'deleted_at', 'search_vector']);

const tablesPath = (app: string) => `/api/apps/${encodeURIComponent(app)}/datatables/`;
const list = (value: string | string[] | undefined) => (Array.isArray(value) ? value : value ? [value] : []);

export function DataScreen({ place, abilities }: { place: Place; abilities?: Abilities }) {
  if (place.table) return <TableView place={place} abilities={abilities} />;
  return <Tables place={place} abilities={abilities} />;
}

function useTables(place: Place) {
  return useQuery({
    queryKey: ['tables', place.site, place.app],
    queryFn: () => get<{ data: TableInfo[] }>(tablesPath(place.app ?? ''), place.site, { page_size: '100' }),
  });
}

function Tables({ place, abilities }: { place: Place; abilities?: Abilities }) {
  const tables = useTables(place);
  return (
    <section>
      <h1>Tables of {place.app}</h1>
      {tables.isLoading && <p>Loading…</p>}
      {tables.error ? <Failure error={tables.error} /> : null}
      {tables.data && tables.data.data.length === 0 && <p>This app has no table yet.</p>}
      {tables.data && tables.data.data.length > 0 && (
        <ul className="picks">
          {tables.data.data.map((table) => (
            <li key={table.name}>
              <a href={href({ ...place, table: table.name })}>
                <strong>{table.name}</strong>{' '}
                <span className="muted">
                  {table.schema.fields.length} fields{table.description ? ` · ${table.description}` : ''}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {abilities?.siteWrite ? (
        <CreateTable place={place} tables={tables.data?.data.map((table) => table.name) ?? []} />
      ) : (
        <p className="muted">Creating tables needs the site's configure permission.</p>
      )}
    </section>
  );
}

interface DraftField {
  name: string;
  type: string;
  required: boolean;
  references: string;
}

function CreateTable({ place, tables }: { place: Place; tables: string[] }) {
  const id = useId();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [fields, setFields] = useState<DraftField[]>([
    { name: '', type: 'string', required: false, references: '' },
  ]);
  const [relations, setRelations] = useState('');
  const [searchable, setSearchable] = useState('');
  const [errors, setErrors] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [busy, setBusy] = useState(false);
  const change = (index: number, patch: Partial<DraftField>) =>
    setFields((current) => current.map((field, i) => (i === index ? { ...field, ...patch } : field)));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setErrors(null);
    const used = fields.filter((field) => field.name.trim());
    const schema: TableSchema = {
      fields: used.map((field) => ({
        name: field.name.trim(),
        ...(field.references ? { type: 'string', format: 'uuid' } : { type: field.type }),
        ...(field.required ? { constraints: { required: true } } : {}),
      })),
    };
    const searchFields = searchable
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (searchFields.length)
      schema.fields.push({
        name: 'search_vector',
        type: 'tsvector',
        'x-search': { fields: searchFields },
      } as FieldDef);
    const types = relations
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (types.length) schema.graph = { enabled: true, types: types.map((name) => ({ name })) };
    const keys = used.filter((field) => field.references);
    if (keys.length)
      schema.foreignKeys = keys.map((field) => ({
        fields: [field.name.trim()],
        reference: { resource: field.references, fields: ['id'] },
      }));
    try {
      await send('POST', tablesPath(place.app ?? ''), { name: name.trim(), schema }, place.site);
      await queries.invalidateQueries({ queryKey: ['tables', place.site, place.app] });
      location.hash = href({ ...place, table: name.trim() });
    } catch (error) {
      setErrors(errorText(error));
    } finally {
      setBusy(false);
    }
  }
  const fieldError = (key: string) => errors?.fields[key]?.join(' ');
  const others = errors
    ? Object.entries(errors.fields).filter(
        ([key]) => key !== 'name' && !/^schema\.fields\.\d+\.(name|type)$/.test(key),
      )
    : [];
  return (
    <form className="card" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`}>Create a table</h2>
      {errors && (
        <div role="alert" className="error">
          {errors.message}
          {others.length > 0 && (
            <ul>
              {others.map(([key, messages]) => (
                <li key={key}>
                  {key}: {messages.join(' ')}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <TextField label="Table name" value={name} onChange={setName} error={fieldError('name')} required />
      <fieldset>
        <legend>Fields (an id, created_at and updated_at are added by the API)</legend>
        {fields.map((field, index) => (
          <div className="field-row" key={index}>
            <TextField
              label={`Field ${index + 1} name`}
              value={field.name}
              onChange={(value) => change(index, { name: value })}
              error={fieldError(`schema.fields.${index}.name`)}
            />
            <SelectField
              label={`Field ${index + 1} type`}
              value={field.references ? 'string' : field.type}
              options={types.map((type) => [type, type])}
              onChange={(value) => change(index, { type: value })}
              disabled={Boolean(field.references)}
              error={fieldError(`schema.fields.${index}.type`)}
            />
            <SelectField
              label={`Field ${index + 1} references`}
              value={field.references}
              options={[
                ['', '(nothing)'],
                ...tables.map((table): [string, string] => [table, `${table} (id)`]),
              ]}
              onChange={(value) => change(index, { references: value })}
            />
            <label className="check">
              <input
                type="checkbox"
                checked={field.required}
                onChange={(event) => change(index, { required: event.target.checked })}
              />{' '}
              Field {index + 1} required
            </label>
          </div>
        ))}
        <button
          type="button"
          onClick={() =>
            setFields((current) => [
              ...current,
              { name: '', type: 'string', required: false, references: '' },
            ])
          }
          disabled={fields.length >= 50}
        >
          Add a field
        </button>
      </fieldset>
      <TextField
        label="Full-text search on (comma-separated text fields, optional)"
        value={searchable}
        onChange={setSearchable}
        error={fieldError('schema.fields')}
      />
      <TextField
        label="Relationship types (comma-separated, optional)"
        value={relations}
        onChange={setRelations}
        hint="Records of this table can then be linked to each other by these types (a graph)."
        error={fieldError('schema.graph')}
      />
      <button type="submit" className="primary" disabled={busy}>
        Create table
      </button>
    </form>
  );
}

function TableView({ place, abilities }: { place: Place; abilities?: Abilities }) {
  const table = useQuery({
    queryKey: ['table', place.site, place.app, place.table],
    queryFn: () =>
      get<{ data: TableInfo }>(
        `${tablesPath(place.app ?? '')}${encodeURIComponent(place.table ?? '')}/`,
        place.site,
      ),
  });
  if (table.isLoading) return <p>Loading…</p>;
  if (table.error || !table.data) return <Failure error={table.error} />;
  const info = table.data.data;
  return (
    <>
      <h1>Table {info.name}</h1>
      <p>
        <a href={href({ org: place.org, site: place.site, app: place.app })}>← All tables of {place.app}</a>
      </p>
      <Records place={place} info={info} abilities={abilities} />
      <SchemaView info={info} />
    </>
  );
}

function describeConstraints(field: FieldDef): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(field.constraints ?? {}))
    parts.push(value === true ? key : `${key}: ${JSON.stringify(value)}`);
  if (field.default !== undefined) parts.push(`default: ${JSON.stringify(field.default)}`);
  return parts.join(', ');
}

function SchemaView({ info }: { info: TableInfo }) {
  const schema = info.schema;
  const keys = list(schema.primaryKey);
  return (
    <section aria-labelledby="schema-title">
      <h2 id="schema-title">Schema</h2>
      <div className="scroll">
        <table>
          <caption>Fields of {info.name}</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Type</th>
              <th scope="col">Constraints</th>
            </tr>
          </thead>
          <tbody>
            {schema.fields.map((field) => (
              <tr key={field.name}>
                <th scope="row">
                  {field.name}
                  {keys.includes(field.name) ? ' (key)' : ''}
                </th>
                <td>
                  {field.type}
                  {field.format ? ` (${field.format})` : ''}
                </td>
                <td>{describeConstraints(field)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Foreign keys</h3>
      {schema.foreignKeys?.length ? (
        <ul>
          {schema.foreignKeys.map((key) => (
            <li key={list(key.fields).join(',')}>
              {list(key.fields).join(', ')} → {key.reference.resource || info.name}.
              {list(key.reference.fields).join(', ')}
              {key['x-actions']?.onDelete ? ` (on delete ${key['x-actions'].onDelete})` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Unique keys and indexes</h3>
      {schema.uniqueKeys?.length || schema.indexes?.length ? (
        <ul>
          {(schema.uniqueKeys ?? []).map((key) => (
            <li key={`u-${list(key).join(',')}`}>unique ({list(key).join(', ')})</li>
          ))}
          {(schema.indexes ?? []).map((index) => (
            <li key={`i-${index.name ?? index.fields.join(',')}`}>
              {index.unique ? 'unique ' : ''}index {index.name ?? ''} ({index.fields.join(', ')})
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Relationship types</h3>
      {schema.graph?.enabled && schema.graph.types?.length ? (
        <ul>
          {schema.graph.types.map((type) => (
            <li key={type.name}>
              {type.name}
              {type.inverse ? ` (inverse ${type.inverse})` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{schema.hierarchy?.enabled ? 'A hierarchy (parent and children).' : 'None.'}</p>
      )}
    </section>
  );
}

/** The API's operators a filter of this field type can use (refine's names; the data provider maps them). */
function operatorsFor(type: string): LogicalFilter['operator'][] {
  switch (type) {
    case 'string':
      return [
        'eq',
        'ne',
        'contains',
        'ncontains',
        'containss',
        'startswith',
        'endswith',
        'in',
        'nin',
        'null',
        'nnull',
      ];
    case 'integer':
    case 'number':
    case 'date':
    case 'time':
    case 'datetime':
      return ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'nbetween', 'in', 'nin', 'null', 'nnull'];
    case 'boolean':
      return ['eq', 'ne', 'null', 'nnull'];
    default:
      return ['null', 'nnull'];
  }
}

const operatorLabels: Record<string, string> = {
  eq: 'equals',
  ne: 'does not equal',
  contains: 'contains',
  ncontains: 'does not contain',
  containss: 'contains (case-sensitive)',
  startswith: 'starts with',
  endswith: 'ends with',
  in: 'is one of (comma-separated)',
  nin: 'is none of (comma-separated)',
  null: 'is empty',
  nnull: 'is not empty',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  between: 'between (min,max)',
  nbetween: 'not between (min,max)',
};

function convert(type: string, text: string): unknown {
  if (type === 'integer' || type === 'number') return text.trim() === '' ? text : Number(text);
  if (type === 'boolean') return text === 'true';
  return text;
}

function filterValue(type: string, operator: string, text: string): unknown {
  if (operator === 'null' || operator === 'nnull') return true;
  if (['in', 'nin', 'between', 'nbetween'].includes(operator))
    return text.split(',').map((part) => convert(type, part.trim()));
  return convert(type, text);
}

function displayValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function Records({ place, info, abilities }: { place: Place; info: TableInfo; abilities?: Abilities }) {
  const fields = info.schema.fields.filter((field) => field.type !== 'tsvector');
  const key = list(info.schema.primaryKey)[0] ?? 'id';
  const [filters, setFilters] = useState<LogicalFilter[]>([]);
  const [sorters, setSorters] = useState<{ field: string; order: 'asc' | 'desc' }[]>([]);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [editing, setEditing] = useState<AnyRecord | 'new' | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const { result, query } = useList<AnyRecord>({
    resource: info.name,
    filters: filters as CrudFilter[],
    sorters,
    pagination: { currentPage: page, pageSize },
    meta: { app: place.app },
  });
  const remove = useDelete();
  const total = result.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const canWrite = abilities?.siteWrite ?? false;

  function toggleSort(field: string) {
    setSorters((current) => {
      const now = current[0]?.field === field ? current[0].order : undefined;
      return now === 'asc' ? [{ field, order: 'desc' }] : now === 'desc' ? [] : [{ field, order: 'asc' }];
    });
    setPage(1);
  }

  async function doDelete(id: string) {
    try {
      await remove.mutateAsync({ resource: info.name, id, meta: { app: place.app } });
      setNotice('Record deleted.');
    } catch (error) {
      setNotice(errorText(error).message);
    }
    setConfirming(null);
  }

  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Records</h2>
      {info.schema.fields.some((field) => field.type === 'tsvector') && (
        <Search place={place} table={info.name} />
      )}
      <FilterBuilder
        fields={fields}
        onAdd={(filter) => {
          setFilters((current) => [...current, filter]);
          setPage(1);
        }}
      />
      {filters.length > 0 && (
        <ul className="chips" aria-label="Active filters">
          {filters.map((filter, index) => (
            <li key={`${filter.field}-${filter.operator}-${index}`}>
              {filter.field} {operatorLabels[filter.operator] ?? filter.operator}{' '}
              {filter.operator === 'null' || filter.operator === 'nnull' ? '' : displayValue(filter.value)}
              <button
                type="button"
                aria-label={`Remove filter ${filter.field} ${operatorLabels[filter.operator] ?? filter.operator}`}
                onClick={() => setFilters((current) => current.filter((_, i) => i !== index))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="toolbar">
        {canWrite ? (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            New record
          </button>
        ) : (
          <span className="muted">Read only: changing records needs the site's change permission.</span>
        )}
        <p aria-live="polite" className="status">
          {query.isFetching ? 'Loading…' : `${total} record${total === 1 ? '' : 's'}`}
          {notice ? ` · ${notice}` : ''}
        </p>
      </div>
      {editing && (
        <RecordForm
          place={place}
          info={info}
          fields={fields}
          record={editing === 'new' ? undefined : editing}
          recordKey={key}
          onDone={(message) => {
            setEditing(null);
            if (message) setNotice(message);
          }}
        />
      )}
      {query.error ? <Failure error={query.error} /> : null}
      <div className="scroll">
        <table className="grid">
          <caption className="sr-only">Records of {info.name}</caption>
          <thead>
            <tr>
              {fields.map((field) => {
                const sorted = sorters[0]?.field === field.name ? sorters[0].order : undefined;
                return (
                  <th
                    key={field.name}
                    scope="col"
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                  >
                    <button type="button" className="sort" onClick={() => toggleSort(field.name)}>
                      {field.name}
                      <span aria-hidden="true">
                        {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </span>
                    </button>
                  </th>
                );
              })}
              {canWrite && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {result.data.map((record) => {
              const id = String(record[key]);
              return (
                <tr key={id}>
                  {fields.map((field) => (
                    <td key={field.name}>{displayValue(record[field.name])}</td>
                  ))}
                  {canWrite && (
                    <td className="actions">
                      <button
                        type="button"
                        onClick={() => setEditing(record)}
                        aria-label={`Edit record ${id}`}
                      >
                        Edit
                      </button>
                      {confirming === id ? (
                        <button
                          type="button"
                          className="danger"
                          onClick={() => doDelete(id)}
                          aria-label={`Confirm delete of record ${id}`}
                        >
                          Confirm delete
                        </button>
                      ) : (
                        <button
                          type="button"
                          onClick={() => setConfirming(id)}
                          aria-label={`Delete record ${id}`}
                        >
                          Delete
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages of records">
        <button type="button" onClick={() => setPage((current) => current - 1)} disabled={page <= 1}>
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" onClick={() => setPage((current) => current + 1)} disabled={page >= pages}>
          Next page
        </button>
        <SelectField
          label="Records per page"
          value={String(pageSize)}
          options={['10', '20', '50', '100'].map((size) => [size, size])}
          onChange={(value) => {
            setPageSize(Number(value));
            setPage(1);
          }}
        />
      </nav>
    </section>
  );
}

/** An excerpt of the API (`<b>` around the matches, the rest text) as React nodes: never set as HTML. */
export function highlighted(excerpt: string) {
  return excerpt.split(/(<b>.*?<\/b>)/).map((part, index) => {
    const match = /^<b>(.*)<\/b>$/.exec(part);
    return match ? <mark key={index}>{match[1]}</mark> : <span key={index}>{part}</span>;
  });
}

function Search({ place, table }: { place: Place; table: string }) {
  const [text, setText] = useState('');
  const [asked, setAsked] = useState('');
  const hits = useQuery({
    queryKey: ['search', place.site, place.app, table, asked],
    enabled: asked !== '',
    queryFn: () =>
      clientFor(place.site)
        .app(place.app ?? '')
        .table(table)
        .search(asked, { paging: { page: 1, pageSize: 20 } }),
  });
  return (
    <div className="card">
      <form
        className="filters"
        aria-label="Full-text search"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked(text.trim());
        }}
      >
        <TextField label="Search text" value={text} onChange={setText} />
        <button type="submit">Search</button>
        {asked && (
          <button
            type="button"
            onClick={() => {
              setAsked('');
              setText('');
            }}
          >
            Clear search
          </button>
        )}
      </form>
      {hits.error ? <Failure error={hits.error} /> : null}
      {asked && hits.data && (
        <>
          <p aria-live="polite" className="status">
            {hits.data.total} match{hits.data.total === 1 ? '' : 'es'} for “{asked}”, best first
          </p>
          <ol className="hits">
            {hits.data.data.map((hit, index) => (
              <li key={index}>{highlighted(String(hit.excerpt ?? ''))}</li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

function FilterBuilder({ fields, onAdd }: { fields: FieldDef[]; onAdd: (filter: LogicalFilter) => void }) {
  const filterable = fields.filter(
    (field) => operatorsFor(field.type).length > 2 || field.type !== 'tsvector',
  );
  const [fieldName, setFieldName] = useState(filterable[0]?.name ?? '');
  const field = filterable.find((candidate) => candidate.name === fieldName);
  const operators = operatorsFor(field?.type ?? 'string');
  const [operator, setOperator] = useState<string>(operators[0] ?? 'eq');
  const [value, setValue] = useState('');
  const usedOperator = operators.includes(operator as LogicalFilter['operator'])
    ? operator
    : (operators[0] ?? 'eq');
  const needsValue = usedOperator !== 'null' && usedOperator !== 'nnull';
  return (
    <form
      className="filters"
      aria-label="Add a filter"
      onSubmit={(event) => {
        event.preventDefault();
        if (!field) return;
        onAdd({
          field: field.name,
          operator: usedOperator as LogicalFilter['operator'],
          value: filterValue(field.type, usedOperator, value),
        });
        setValue('');
      }}
    >
      <SelectField
        label="Filter field"
        value={fieldName}
        options={filterable.map((candidate) => [candidate.name, candidate.name])}
        onChange={setFieldName}
      />
      <SelectField
        label="Operator"
        value={usedOperator}
        options={operators.map((name) => [name, operatorLabels[name] ?? name])}
        onChange={setOperator}
      />
      {needsValue &&
        (field?.type === 'boolean' ? (
          <SelectField
            label="Value"
            value={value || 'true'}
            options={[
              ['true', 'true'],
              ['false', 'false'],
            ]}
            onChange={setValue}
          />
        ) : (
          <TextField label="Value" value={value} onChange={setValue} />
        ))}
      <button type="submit">Add filter</button>
    </form>
  );
}

/** The text a form shows for a value, and back. */
function toText(field: FieldDef, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (['object', 'array', 'json', 'any'].includes(field.type)) return JSON.stringify(value, null, 2);
  return String(value);
}

function fromText(field: FieldDef, text: string): { value?: unknown; error?: string } {
  if (text === '') return { value: null };
  switch (field.type) {
    case 'integer':
    case 'number': {
      const number = Number(text);
      return Number.isFinite(number) ? { value: number } : { error: 'Enter a number.' };
    }
    case 'boolean':
      return { value: text === 'true' };
    case 'object':
    case 'array':
    case 'json':
    case 'any':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: 'Enter valid JSON.' };
      }
    default:
      return { value: text };
  }
}

function RecordForm({
  place,
  info,
  fields,
  record,
  recordKey,
  onDone,
}: {
  place: Place;
  info: TableInfo;
  fields: FieldDef[];
  record?: AnyRecord;
  recordKey: string;
  onDone: (message?: string) => void;
}) {
  const id = useId();
  const editable = fields.filter(
    (field) =>
      !readOnly.has(field.name) && !(field.name === recordKey && !record) && field.name !== recordKey,
  );
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(editable.map((field) => [field.name, toText(field, record?.[field.name])])),
  );
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState('');
  const create = useCreate();
  const update = useUpdate();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body: AnyRecord = {};
    const local: Record<string, string[]> = {};
    for (const field of editable) {
      const text = values[field.name] ?? '';
      if (record && text === toText(field, record[field.name])) continue;
      if (!record && text === '') continue;
      const parsed = fromText(field, text);
      if (parsed.error) local[field.name] = [parsed.error];
      else body[field.name] = parsed.value;
    }
    setErrors(local);
    setMessage('');
    if (Object.keys(local).length) return focusFirstError(id);
    try {
      if (record)
        await update.mutateAsync({
          resource: info.name,
          id: String(record[recordKey]),
          values: body,
          meta: { app: place.app },
          successNotification: false,
          errorNotification: false,
        });
      else
        await create.mutateAsync({
          resource: info.name,
          values: body,
          meta: { app: place.app },
          successNotification: false,
          errorNotification: false,
        });
      onDone(record ? 'Record saved.' : 'Record created.');
    } catch (error) {
      const { message: text, fields: byField } = errorText(error);
      setErrors(byField);
      setMessage(text);
      focusFirstError(id);
    }
  }

  const shown = new Set(editable.map((field) => field.name));
  const elsewhere = Object.entries(errors).filter(([name]) => !shown.has(name));
  return (
    <form className="card" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate id={id}>
      <h3 id={`${id}-title`}>{record ? `Edit record ${String(record[recordKey])}` : 'New record'}</h3>
      {message && (
        <div role="alert" className="error">
          {message}
          {elsewhere.length > 0 && (
            <ul>
              {elsewhere.map(([name, messages]) => (
                <li key={name}>
                  {name}: {messages.join(' ')}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {editable.map((field) => {
        const error = errors[field.name]?.join(' ');
        const label = `${field.name}${field.constraints?.required ? ' (required)' : ''}`;
        const set = (value: string) => setValues((current) => ({ ...current, [field.name]: value }));
        if (field.constraints?.enum)
          return (
            <SelectField
              key={field.name}
              label={label}
              value={values[field.name] ?? ''}
              options={[
                ['', '(empty)'],
                ...field.constraints.enum.map((option): [string, string] => [String(option), String(option)]),
              ]}
              onChange={set}
              error={error}
            />
          );
        if (field.type === 'boolean')
          return (
            <SelectField
              key={field.name}
              label={label}
              value={values[field.name] ?? ''}
              options={[
                ['', '(empty)'],
                ['true', 'true'],
                ['false', 'false'],
              ]}
              onChange={set}
              error={error}
            />
          );
        return (
          <TextField
            key={field.name}
            label={label}
            value={values[field.name] ?? ''}
            onChange={set}
            error={error}
            multiline={['object', 'array', 'json', 'any'].includes(field.type)}
            inputType={field.type === 'date' ? 'date' : field.type === 'time' ? 'time' : 'text'}
            inputMode={field.type === 'integer' ? 'numeric' : field.type === 'number' ? 'decimal' : undefined}
            hint={field.type === 'datetime' ? 'RFC 3339 with a zone, e.g. 2026-01-31T12:00:00Z' : undefined}
          />
        );
      })}
      <div className="toolbar">
        <button
          type="submit"
          className="primary"
          disabled={create.mutation.isPending || update.mutation.isPending}
        >
          {record ? 'Save' : 'Create'}
        </button>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function focusFirstError(formId: string) {
  requestAnimationFrame(() => {
    const first = document.getElementById(formId)?.querySelector<HTMLElement>('[aria-invalid="true"]');
    first?.focus();
  });
}

export function TextField({
  label,
  value,
  onChange,
  error,
  hint,
  required,
  multiline,
  inputType = 'text',
  inputMode,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  required?: boolean;
  multiline?: boolean;
  inputType?: string;
  inputMode?: 'numeric' | 'decimal';
}) {
  const id = useId();
  const described =
    [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    value,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': described,
    'aria-required': required || undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {multiline ? (
        <textarea {...common} rows={3} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input
          {...common}
          type={inputType}
          inputMode={inputMode}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

export function SelectField({
  label,
  value,
  options,
  onChange,
  error,
  disabled,
}: {
  label: string;
  value: string;
  options: [string, string][];
  onChange: (value: string) => void;
  error?: string;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => onChange(event.target.value)}
      >
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}
