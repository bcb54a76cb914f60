/** Request and response schemas of the accounts group (JSON Schema; request types derive from them). */

import { idSchema } from '../api/numbers';
import { pageQuery } from '../api/pagination';
import { namePattern, slugMaxLength, slugPattern } from '../slug';
import { sitePermissions } from './model';
import { passwordMaxLength, passwordMinLength } from './password-policy';
import { usernamePattern } from './users';

const slug = { type: 'string', pattern: slugPattern, maxLength: slugMaxLength } as const;
/** Names of organizations, sites and apps: the platform's rule for names (shared/slug.ts). */
const name = { type: 'string', minLength: 1, maxLength: 100, pattern: namePattern } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const id = idSchema;
const organizationRole = { type: 'string', enum: ['owner', 'admin', 'member'] } as const;

export const userIdParams = { type: 'object', properties: { user_id: id } } as const;

export const newUserBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    username: { type: 'string', pattern: usernamePattern, minLength: 1, maxLength: 150 },
    password: { type: 'string', minLength: passwordMinLength, maxLength: passwordMaxLength },
    first_name: { type: 'string', maxLength: 150 },
    last_name: { type: 'string', maxLength: 150 },
    is_superuser: { type: 'boolean' },
    is_active: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

const newUser = newUserBody.properties;

export const userChangesBody = {
  type: 'object',
  properties: {
    current_password: { type: 'string', minLength: 1, maxLength: 1024 },
    password: newUser.password,
    first_name: newUser.first_name,
    last_name: newUser.last_name,
    is_superuser: { type: 'boolean' },
    is_active: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

/**
 * A password to check against the policy without setting it, with the words of the account it is meant for (the
 * policy counts them as known words). Every field is bounded as where it is set; the email is a word, not checked.
 */
export const passwordCheckBody = {
  type: 'object',
  required: ['password'],
  properties: {
    password: { type: 'string', minLength: 1, maxLength: passwordMaxLength },
    username: { type: 'string', maxLength: 150 },
    email: { type: 'string', maxLength: 254 },
    first_name: newUser.first_name,
    last_name: newUser.last_name,
  },
  additionalProperties: false,
} as const;

export const passwordCheckResult = {
  type: 'object',
  required: ['valid', 'password'],
  properties: {
    valid: { type: 'boolean', description: 'Whether the policy accepts the password' },
    password: {
      type: 'array',
      items: { type: 'string' },
      description: "The policy's messages: the same words a refused change of this password would answer",
    },
  },
  additionalProperties: false,
} as const;

export const listUsersQuery = {
  type: 'object',
  properties: { ...pageQuery(20), search: { type: 'string' } },
} as const;
export const pagedQuery = { type: 'object', properties: pageQuery(20) } as const;

export const newOrganizationBody = {
  type: 'object',
  required: ['name'],
  properties: { name, slug },
  additionalProperties: false,
} as const;

export const memberBody = {
  type: 'object',
  properties: {
    user_id: id,
    email: newUser.email,
    username: newUser.username,
    password: newUser.password,
    first_name: newUser.first_name,
    last_name: newUser.last_name,
    role: { ...organizationRole, default: 'member' },
  },
  additionalProperties: false,
} as const;

export const transferBody = {
  type: 'object',
  required: ['user_id'],
  properties: { user_id: id },
  additionalProperties: false,
} as const;

export const newSiteBody = newOrganizationBody;

export const sitePermissionsBody = {
  type: 'object',
  required: ['permissions'],
  properties: {
    permissions: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...sitePermissions] } },
  },
  additionalProperties: false,
} as const;

/** What the caller may do on the request's site (GET /api/cloud/users/me/site-permissions/). */
export const ownSitePermissions = {
  type: 'object',
  required: [
    'site',
    'user_id',
    'is_superuser',
    'organization_role',
    'permissions',
    'actions',
    'social_app_writes',
  ],
  properties: {
    site: { type: 'string' },
    user_id: id,
    is_superuser: { type: 'boolean' },
    organization_role: { type: ['string', 'null'], enum: [...organizationRole.enum, null] },
    permissions: sitePermissionsBody.properties.permissions,
    actions: {
      type: 'array',
      items: {
        type: 'string',
        enum: ['administer', 'configure', 'manage_users', 'change', 'delete', 'view', 'access'],
      },
    },
    social_app_writes: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

export const newAppBody = {
  type: 'object',
  required: ['name'],
  properties: { name, slug, description: { type: 'string', maxLength: 1000 } },
  additionalProperties: false,
} as const;

/** A page of a list: `{count, next, previous, results}`, with absolute links to the neighbouring pages. */
export function linkedPageOf<const S extends object>(item: S) {
  return {
    type: 'object',
    required: ['count', 'next', 'previous', 'results'],
    properties: {
      count: { type: 'integer', minimum: 0 },
      next: { type: ['string', 'null'] },
      previous: { type: ['string', 'null'] },
      results: { type: 'array', items: item },
    },
    additionalProperties: false,
  } as const;
}

export const user = {
  type: 'object',
  required: ['id', 'uuid', 'username', 'email', 'first_name', 'last_name', 'is_active', 'is_superuser'],
  properties: {
    id,
    uuid: { type: 'string' },
    username: { type: 'string' },
    email: { type: 'string' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    is_active: { type: 'boolean' },
    is_superuser: { type: 'boolean' },
    /** Whether the address was proven (an invitation's link followed, a reset link, a trusted provider). */
    email_verified: { type: 'boolean' },
    date_joined: dateTime,
    last_login: { type: ['string', 'null'], format: 'date-time' },
  },
  additionalProperties: false,
} as const;

/** A member's account as the caller may see it: names for members, more for admins, all for superusers. */
const memberUser = {
  type: 'object',
  required: ['id', 'username', 'first_name', 'last_name'],
  properties: user.properties,
  additionalProperties: false,
} as const;

export const organization = {
  type: 'object',
  required: ['id', 'slug', 'name', 'owner_id', 'created_at'],
  properties: {
    id,
    slug: { type: 'string' },
    name: { type: 'string' },
    owner_id: id,
    created_at: dateTime,
    require_mfa: { type: 'boolean', description: 'Present and true when members need a second factor' },
  },
  additionalProperties: false,
} as const;

/** An organization with the caller's role in it (null for a superuser who is not a member). */
export const organizationWithRole = {
  ...organization,
  required: [...organization.required, 'role'],
  properties: {
    ...organization.properties,
    role: { type: ['string', 'null'], enum: [...organizationRole.enum, null] },
  },
} as const;

/** An organization a user belongs to, with their role in it (a superuser's view of an account). */
export const userOrganization = {
  ...organization,
  required: [...organization.required, 'role'],
  properties: { ...organization.properties, role: organizationRole },
} as const;

/** What was done, as a sentence for the person (a superuser's reset link sent). */
export const sentAnswer = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
  additionalProperties: false,
} as const;

export const member = {
  type: 'object',
  required: ['organization', 'user_id', 'role', 'joined_at', 'user'],
  properties: {
    organization: { type: 'string' },
    user_id: id,
    role: organizationRole,
    joined_at: dateTime,
    user: memberUser,
  },
  additionalProperties: false,
} as const;

export const site = {
  type: 'object',
  required: ['id', 'slug', 'name', 'organization_id', 'organization_slug', 'created_at'],
  properties: {
    id,
    slug: { type: 'string' },
    name: { type: 'string' },
    organization_id: id,
    organization_slug: { type: 'string' },
    created_at: dateTime,
    require_mfa: { type: 'boolean', description: "A copy of its organization's require_mfa" },
  },
  additionalProperties: false,
} as const;

export const sitePermissionGrant = {
  type: 'object',
  required: ['site', 'user_id', 'permissions', 'updated_at'],
  properties: {
    site: { type: 'string' },
    user_id: id,
    permissions: sitePermissionsBody.properties.permissions,
    updated_at: dateTime,
  },
  additionalProperties: false,
} as const;

export const app = {
  type: 'object',
  required: ['id', 'slug', 'name', 'description', 'site', 'created_at'],
  properties: {
    id,
    slug: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    site: { type: 'string' },
    created_at: dateTime,
  },
  additionalProperties: false,
} as const;

/** A row of the organization's member list: the member and the groups it belongs to. */
export const listedMember = {
  ...member,
  required: [...member.required, 'groups'],
  properties: {
    ...member.properties,
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['slug', 'name'],
        properties: { slug: { type: 'string' }, name: { type: 'string' } },
        additionalProperties: false,
      },
    },
  },
} as const;
