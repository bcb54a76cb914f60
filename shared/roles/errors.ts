/**
 * The errors of the roles group, each with its `error` title and stable `code` (docs/roles.md lists them all). The
 * roles envelope turns them into `{error, detail, code}`.
 */
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../errors';

const quoted = (values: readonly string[]) => values.map((value) => `"${value}"`).join(', ');

export const roleErrors = {
  appNotFound: (slug: string) =>
    new NotFoundError({
      message: `No app with the slug "${slug}" exists in this site.`,
      code: 'app_not_found',
      title: 'App not found',
    }),

  roleNotFound: (slugs: readonly string[]) =>
    new NotFoundError({
      message:
        slugs.length === 1
          ? `No role with the slug ${quoted(slugs)} exists in this site.`
          : `No roles with the slugs ${quoted(slugs)} exist in this site.`,
      code: 'role_not_found',
      title: 'Role not found',
    }),

  userNotFound: (usernames: readonly string[]) =>
    new NotFoundError({
      message:
        usernames.length === 1
          ? `No user with the username ${quoted(usernames)} exists.`
          : `No users with the usernames ${quoted(usernames)} exist.`,
      code: 'user_not_found',
      title: 'User not found',
    }),

  membershipNotFound: (role: string, usernames: readonly string[]) =>
    new NotFoundError({
      message: `The role "${role}" is not assigned to ${quoted(usernames)}.`,
      code: 'membership_not_found',
      title: 'Membership not found',
    }),

  roleExists: (name: string, app: string) =>
    new ConflictError({
      code: 'role_exists',
      message: `A role named "${name}" already exists in the app "${app}".`,
      title: 'Role already exists',
    }),

  siteRoleExists: (name: string) =>
    new ConflictError({
      code: 'site_role_exists',
      message: `A site role named "${name}" already exists.`,
      title: 'Role already exists',
    }),

  slugTaken: (slug: string, holder: string) =>
    new ConflictError({
      code: 'role_slug_taken',
      message: `The slug "${slug}" is already used by ${holder}; role slugs are unique across application and site roles.`,
      title: 'Role slug already in use',
    }),

  hierarchyChanged: () =>
    new ConflictError({
      code: 'role_hierarchy_changed',
      message: 'The role hierarchy changed while the request ran; try again.',
      title: 'Concurrent change',
    }),

  nameImmutable: () =>
    new BadRequestError({
      code: 'role_name_immutable',
      message: 'The name of an application role cannot be changed.',
      title: 'Role name cannot be changed',
    }),

  invalidName: () =>
    ValidationError.field(
      'name',
      'The name must contain at least one letter or digit, from which the slug is made.',
      'invalid_role_name',
    ),

  parentNotFound: (slug: string, app: string) =>
    new BadRequestError({
      code: 'parent_role_not_found',
      message: `No role with the slug "${slug}" exists in the app "${app}" to be the parent.`,
      title: 'Parent role not found',
    }),

  cycle: (slug: string, parent: string) =>
    new BadRequestError({
      code: 'role_hierarchy_cycle',
      message: `"${parent}" cannot be the parent of "${slug}": it is "${slug}" itself or one of its descendants.`,
      title: 'Invalid role hierarchy',
    }),

  notAnAppRole: (slug: string) =>
    new BadRequestError({
      code: 'not_an_application_role',
      message: `"${slug}" is a site role; the hierarchy exists for application roles only.`,
      title: 'Not an application role',
    }),

  invalidRoleSlugs: (slugs: readonly string[]) =>
    new BadRequestError({
      code: 'invalid_role_slugs',
      message: `Not application roles of this site: ${quoted(slugs)}. A site role bundles application roles only.`,
      title: 'Invalid role slugs',
    }),

  expiryInPast: () =>
    ValidationError.field('expires_at', 'The expiry time must be in the future.', 'expires_at_in_past'),
} as const;
