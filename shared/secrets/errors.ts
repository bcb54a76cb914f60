import type { FieldErrors } from '../errors';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  ValidationError,
} from '../errors';

/** The secret store's error bodies, to the letter of doc 2's table (docs/secrets.md). */
export const secretErrors = {
  schemaValidation: (fields: FieldErrors) =>
    new ValidationError({ fields, message: 'Schema validation failed' }),
  field: (field: string, message: string) => ValidationError.field(field, message),
  typeNameTaken: (name: string) => {
    const message = `A secret type named "${name}" already exists.`;
    return new BadRequestError({ code: 'duplicate_name', message, body: { message, field: 'name' } });
  },
  tagNameTaken: (name: string) => {
    const message = `A tag named "${name}" already exists.`;
    return new BadRequestError({ code: 'duplicate_name', message, body: { message, field: 'name' } });
  },
  systemTypeDelete: () => {
    const error = 'System secret types cannot be deleted.';
    return new BadRequestError({ code: 'system_type', message: error, body: { error } });
  },
  typeInUse: (slug: string, count: number) => {
    const error = `Secret type "${slug}" is used by ${count} secret${count === 1 ? '' : 's'} and cannot be deleted.`;
    return new BadRequestError({ code: 'type_in_use', message: error, body: { error } });
  },
  classification: (field: string, current: string, attempted: unknown) => {
    const error = 'Type classification cannot be changed after creation.';
    return new BadRequestError({
      code: 'immutable_field',
      message: error,
      body: { error, detail: { field, current, attempted } },
    });
  },
  typeNotFound: (slug: string) =>
    new NotFoundError({
      message: `No secret type with the slug "${slug}" exists in this site.`,
      code: 'type_not_found',
      title: 'Secret type not found',
    }),
  tagNotFound: (slug: string) =>
    new NotFoundError({
      message: `No tag with the slug "${slug}" exists in this site.`,
      code: 'tag_not_found',
      title: 'Tag not found',
    }),
  secretNotFound: (key: string, app: string | null) =>
    new NotFoundError({
      message:
        app === null
          ? `Secret "${key}" not found at site level.`
          : `Secret "${key}" not found at app level (app "${app}") or site level.`,
      code: 'secret_not_found',
      title: 'Secret not found',
    }),
  secretLacksTags: (key: string, tags: readonly string[]) =>
    new NotFoundError({
      message: `Secret "${key}" has none of the tags: ${tags.join(', ')}.`,
      code: 'secret_not_found',
      title: 'Secret not found',
    }),
  /** A write lost a race: the secret changed after it was read (409; docs/api-decisions.md). */
  changedMeanwhile: (key: string) =>
    new ConflictError({
      code: 'secret_changed',
      message: `The secret "${key}" changed meanwhile: read it again and retry.`,
      title: 'Conflict',
    }),
  /** An anonymous caller asked for a value that is not public. */
  notPublic: () =>
    new AuthenticationError({
      message: 'This secret is not public: sign in to read it.',
      code: 'not_authenticated',
    }),
} as const;
