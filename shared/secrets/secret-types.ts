import { iso } from '../clock';
import { queryAll } from '../store/store';
import { createUnique, onConditionFailure, putNew, type TransactItem, transact } from '../store/writes';
import { secretErrors } from './errors';
import { secretKeys } from './keys';
import { nameSlug, type SecretType, type Sensitivity, type TypeKind } from './model';
import { getItem, type SecretsDeps, sweepSecrets } from './store-helpers';
import { checkSchema } from './values';

export interface NewSecretType {
  type?: TypeKind | undefined;
  name: string;
  description?: string | undefined;
  sensitivity_level: Sensitivity;
  schema?: Record<string, unknown> | undefined;
}

export interface SecretTypeChanges {
  name?: string | undefined;
  description?: string | undefined;
  schema?: Record<string, unknown> | undefined;
  type?: unknown;
  sensitivity_level?: unknown;
}

/** Every type of a site. */
export function listSecretTypes(deps: SecretsDeps, site: string): Promise<SecretType[]> {
  return queryAll<SecretType>(deps.store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': secretKeys.types(site), ':prefix': secretKeys.typePrefix },
  });
}

/** A type by slug; 404 when the site has none. */
export async function secretTypeOf(deps: SecretsDeps, site: string, slug: string): Promise<SecretType> {
  const found = await getItem<SecretType>(deps.store, secretKeys.type(site, slug));
  if (!found) throw secretErrors.typeNotFound(slug);
  return found;
}

/** Creates a type; its slug comes from the name, which is unique case-insensitively (a sentinel holds it). */
export async function createSecretType(
  deps: SecretsDeps,
  site: string,
  input: NewSecretType,
): Promise<SecretType> {
  const schema = input.schema ?? { type: 'object' };
  await checkSchema(schema);
  const now = iso(deps.clock());
  const slug = nameSlug(input.name);
  const type: SecretType = {
    site,
    type: input.type ?? 'custom',
    name: input.name,
    slug,
    description: input.description ?? '',
    sensitivity_level: input.sensitivity_level,
    schema,
    secret_count: 0,
    created_at: now,
    modified_at: now,
  };
  await createUnique(
    deps.store,
    [
      { item: { ...secretKeys.typeName(site, slug), type_slug: slug } },
      { item: { ...secretKeys.type(site, slug), ...type } },
    ],
    { otherwise: () => secretErrors.typeNameTaken(input.name) },
  );
  return type;
}

/** The classification fields may be sent back unchanged, never changed. */
function refuseReclassification(type: SecretType, changes: SecretTypeChanges): void {
  if (changes.type !== undefined && changes.type !== type.type)
    throw secretErrors.classification('type', type.type, changes.type);
  if (changes.sensitivity_level !== undefined && changes.sensitivity_level !== type.sensitivity_level)
    throw secretErrors.classification('sensitivity_level', type.sensitivity_level, changes.sensitivity_level);
}

/** Changes a type's name (its slug stays; its secrets show the new name), description or schema. */
export async function updateSecretType(
  deps: SecretsDeps,
  site: string,
  slug: string,
  changes: SecretTypeChanges,
): Promise<SecretType> {
  const type = await secretTypeOf(deps, site, slug);
  refuseReclassification(type, changes);
  if (changes.schema) await checkSchema(changes.schema);
  const updated: SecretType = {
    ...type,
    name: changes.name ?? type.name,
    description: changes.description ?? type.description,
    schema: changes.schema ?? type.schema,
    modified_at: iso(deps.clock()),
  };
  const renamed = nameSlug(updated.name) !== nameSlug(type.name);
  const table = deps.store.table;
  const { secret_count: _count, ...fields } = updated;
  const names = ['name', 'description', 'schema', 'modified_at'] as const;
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: secretKeys.type(site, slug),
        ConditionExpression: 'attribute_exists(PK)',
        UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
        ExpressionAttributeValues: Object.fromEntries(names.map((name) => [`:${name}`, fields[name]])),
      },
    },
  ];
  if (renamed) {
    items.push(putNew(table, { ...secretKeys.typeName(site, nameSlug(updated.name)), type_slug: slug }));
    items.push({ Delete: { TableName: table, Key: secretKeys.typeName(site, nameSlug(type.name)) } });
  }
  await onConditionFailure(transact(deps.store, items), (failed) => {
    throw failed.includes(1) ? secretErrors.typeNameTaken(updated.name) : secretErrors.typeNotFound(slug);
  });
  if (updated.name !== type.name)
    await sweepSecrets(
      deps.store,
      site,
      (secret) => secret.type_slug === slug,
      () => ({ type_name: updated.name }),
    );
  return updated;
}

/** Deletes a custom type no secret uses (the count lives on the type, kept by the secrets' transactions). */
export async function deleteSecretType(deps: SecretsDeps, site: string, slug: string): Promise<SecretType> {
  const type = await secretTypeOf(deps, site, slug);
  if (type.type === 'system') throw secretErrors.systemTypeDelete();
  if (type.secret_count > 0) throw secretErrors.typeInUse(slug, type.secret_count);
  const table = deps.store.table;
  await onConditionFailure(
    transact(deps.store, [
      {
        Delete: {
          TableName: table,
          Key: secretKeys.type(site, slug),
          ConditionExpression: 'attribute_exists(PK) AND secret_count = :zero',
          ExpressionAttributeValues: { ':zero': 0 },
        },
      },
      { Delete: { TableName: table, Key: secretKeys.typeName(site, nameSlug(type.name)) } },
    ]),
    async () => {
      // A secret took the type meanwhile.
      const now = await secretTypeOf(deps, site, slug);
      throw secretErrors.typeInUse(slug, now.secret_count);
    },
  );
  return type;
}
