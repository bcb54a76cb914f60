import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction } from '../../kit/parts';
import { ReadOnly } from '../../kit/permissions';
import { answerOf, clientFor } from '../../queries/client';
import { type SecretType, type Sensitivity, useSecretTypes } from './model';

/** The site's secret types: their sensitivity and schema; a new one (who may configure the site). */
export function SecretTypes({ site, configure }: { site: string; configure: boolean }) {
  const queries = useQueryClient();
  const types = useSecretTypes(site);
  const action = useAction();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [sensitivity, setSensitivity] = useState<Sensitivity>('private');
  const [schema, setSchema] = useState('{"type": "object", "properties": {}, "required": []}');
  let schemaProblem: string | undefined;
  try {
    JSON.parse(schema);
  } catch {
    schemaProblem = 'Enter valid JSON (a JSON Schema object).';
  }
  // The type being edited (its slug), or '' for a new one.
  const [editing, setEditing] = useState('');
  const blank = '{"type": "object", "properties": {}, "required": []}';
  function edit(type: SecretType) {
    setEditing(type.slug);
    setName(type.name);
    setDescription(type.description ?? '');
    setSchema(JSON.stringify(type.schema ?? {}, null, 2));
    action.setNotice('');
  }
  function reset() {
    setEditing('');
    setName('');
    setDescription('');
    setSchema(blank);
  }
  async function create(event: FormEvent) {
    event.preventDefault();
    if (schemaProblem) return;
    const ok = await action.run(async () => {
      const fields = { name: name.trim(), description, schema: JSON.parse(schema) };
      if (editing)
        await answerOf(
          clientFor(site).PUT('/api/secret-types/{slug}/', {
            params: { path: { slug: editing } },
            body: fields,
          }),
        );
      else
        await answerOf(
          clientFor(site).POST('/api/secret-types/', { body: { ...fields, sensitivity_level: sensitivity } }),
        );
      await queries.invalidateQueries({ queryKey: ['secret-types', site] });
      await queries.invalidateQueries({ queryKey: ['secrets', site] });
      return `Secret type ${name.trim()} ${editing ? 'saved' : 'created'}.`;
    });
    if (ok) reset();
  }
  async function remove(type: SecretType) {
    await action.run(async () => {
      await answerOf(
        clientFor(site).DELETE('/api/secret-types/{slug}/', { params: { path: { slug: type.slug } } }),
      );
      await queries.invalidateQueries({ queryKey: ['secret-types', site] });
      if (editing === type.slug) reset();
      return `Secret type ${type.name} deleted.`;
    });
  }
  const list = types.data?.items ?? [];
  return (
    <section aria-labelledby="types-title">
      <h2 id="types-title">Types of secrets</h2>
      <Notice text={action.notice} />
      {types.error ? <Failure error={types.error} /> : null}
      {list.length > 0 && <TypesTable types={list} configure={configure} onEdit={edit} onRemove={remove} />}
      {configure ? (
        <form className="card" onSubmit={create} noValidate aria-labelledby="new-type-title">
          <h3 id="new-type-title">{editing ? `Edit the type ${editing}` : 'New type of secret'}</h3>
          <FormError error={action.error} shown={['name', 'schema', 'sensitivity_level', 'description']} />
          <TextField
            label="Type name"
            value={name}
            onChange={setName}
            required
            hint="Letters, digits, - and _."
            error={action.at('name')}
          />
          <TextField label="Type description" value={description} onChange={setDescription} />
          {!editing && (
            <SelectField
              label="Sensitivity"
              value={sensitivity}
              options={[
                ['public', 'public (readable without signing in)'],
                ['private', 'private (encrypted)'],
                ['sensitive', 'sensitive (encrypted)'],
              ]}
              onChange={setSensitivity}
              error={action.at('sensitivity_level')}
            />
          )}
          <TextField
            label="JSON Schema"
            value={schema}
            onChange={setSchema}
            multiline
            hint="Every value of this type is checked against it."
            error={schemaProblem ?? action.at('schema')}
          />
          <div className="toolbar">
            <button type="submit" className="primary" disabled={action.busy || Boolean(schemaProblem)}>
              {editing ? 'Save type' : 'Create type'}
            </button>
            {editing && (
              <button type="button" onClick={reset}>
                Cancel
              </button>
            )}
          </div>
        </form>
      ) : (
        <ReadOnly what="creating, editing and deleting secret types" action="configure" />
      )}
    </section>
  );
}

/** The site's types of secrets: system or custom, sensitivity; Edit, and Delete of a custom one. */
function TypesTable({
  types,
  configure,
  onEdit,
  onRemove,
}: {
  types: SecretType[];
  configure: boolean;
  onEdit: (type: SecretType) => void;
  onRemove: (type: SecretType) => void;
}) {
  return (
    <div className="scroll">
      <table>
        <caption className="sr-only">Types of secrets of the site</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Slug</th>
            <th scope="col">Kind</th>
            <th scope="col">Sensitivity</th>
            {configure && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {types.map((type) => (
            <tr key={type.slug}>
              <th scope="row">{type.name}</th>
              <td>{type.slug}</td>
              <td>{type.type}</td>
              <td>{type.sensitivity_level}</td>
              {configure && (
                <td className="actions">
                  <button type="button" onClick={() => onEdit(type)} aria-label={`Edit type ${type.name}`}>
                    Edit
                  </button>
                  {/* A system type is never deleted (the API's rule): no button that can only be refused. */}
                  {type.type !== 'system' && (
                    <ConfirmButton
                      label="Delete"
                      what={`type ${type.name}`}
                      onConfirm={() => onRemove(type)}
                    />
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
