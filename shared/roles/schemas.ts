/** Request schemas of the roles group (JSON Schema, compiled once by the handler). */

import { orderings } from '../api/listing';
import { pageSchema } from '../api/numbers';
import { pageQuery } from '../api/pagination';

/** Limits of the spec (docs/roles.md, "Limits"). */
export const limits = {
  nameLength: 100,
  descriptionLength: 1000,
  /** Roles and usernames per bulk request, and per request of the other membership endpoints. */
  perRequest: 100,
} as const;

const name = { type: 'string', minLength: 1, maxLength: limits.nameLength } as const;
const description = { type: 'string', maxLength: limits.descriptionLength } as const;
const slug = { type: 'string', minLength: 1, maxLength: 300 } as const;
const username = { type: 'string', minLength: 1, maxLength: 254 } as const;
const expiresAt = { type: ['string', 'null'], format: 'date-time' } as const;
const list = <const S extends object>(items: S, minItems = 0) =>
  ({ type: 'array', items, minItems, maxItems: limits.perRequest }) as const;

export const createAppRoleBody = {
  type: 'object',
  required: ['name'],
  properties: { name, description, parent_role_slug: { type: ['string', 'null'], maxLength: 300 } },
  additionalProperties: false,
} as const;

/** `name` is declared so that sending it is the spec's 400 "name change", not an unknown-field error. */
export const updateAppRoleBody = {
  type: 'object',
  properties: { name: {}, description, parent_role_slug: { type: ['string', 'null'], maxLength: 300 } },
  additionalProperties: false,
} as const;

export const createSiteRoleBody = {
  type: 'object',
  required: ['name'],
  properties: { name, description, role_slugs: list(slug) },
  additionalProperties: false,
} as const;

export const updateSiteRoleBody = {
  type: 'object',
  properties: { name, description, role_slugs: list(slug) },
  additionalProperties: false,
} as const;

export const assignBody = {
  type: 'object',
  required: ['roles', 'usernames'],
  properties: { roles: list(slug, 1), usernames: list(username, 1), expires_at: expiresAt },
  additionalProperties: false,
} as const;

export const revokeBody = {
  type: 'object',
  required: ['roles', 'usernames'],
  properties: { roles: list(slug, 1), usernames: list(username, 1) },
  additionalProperties: false,
} as const;

export const roleUsersBody = {
  type: 'object',
  required: ['usernames'],
  properties: { usernames: list(username) },
  additionalProperties: false,
} as const;

export const roleUsersExpiryBody = {
  type: 'object',
  required: ['usernames', 'expires_at'],
  properties: { usernames: list(username, 1), expires_at: expiresAt },
  additionalProperties: false,
} as const;

export const removeRoleUsersBody = {
  type: 'object',
  required: ['usernames'],
  properties: { usernames: list(username, 1) },
  additionalProperties: false,
} as const;

export const assignUserRolesBody = {
  type: 'object',
  required: ['role_slugs'],
  properties: { role_slugs: list(slug), expires_at: expiresAt },
  additionalProperties: false,
} as const;

export const removeUserRolesBody = {
  type: 'object',
  required: ['role_slugs'],
  properties: { role_slugs: list(slug, 1) },
  additionalProperties: false,
} as const;

const roleListQuery = {
  type: 'object',
  properties: {
    search: { type: 'string' },
    ordering: { type: 'string', enum: orderings(['name', 'created_at', 'updated_at']), default: 'name' },
    ...pageQuery(20, 100),
  },
} as const;

export const listAppRolesQuery = roleListQuery;
export const listSiteRolesQuery = roleListQuery;

export const deleteAppRoleQuery = {
  type: 'object',
  properties: { remove_child_roles: { type: 'boolean', default: false } },
} as const;

export const listRoleUsersQuery = {
  type: 'object',
  properties: {
    search: { type: 'string' },
    username: { type: 'string' },
    include_expired: { type: 'boolean', default: false },
    ordering: {
      type: 'string',
      enum: orderings(['username', 'email', 'first_name', 'last_name', 'created_at', 'expires_at']),
      default: '-created_at',
    },
    // Not in the spec's table: optional paging for roles with many holders; without page_size, the whole list.
    page: pageSchema,
    page_size: { type: 'integer', minimum: 1, maximum: 100 },
  },
} as const;

export const listUserRolesQuery = {
  type: 'object',
  properties: {
    app: { type: 'string', maxLength: 300 },
    search: { type: 'string' },
    membership_type: { type: 'string', enum: ['app_role', 'site_role'] },
    include_expired: { type: 'boolean', default: false },
    ordering: {
      type: 'string',
      enum: orderings(['name', 'slug', 'created_at', 'expires_at']),
      default: '-created_at',
    },
  },
} as const;

// Responses: the representations and envelopes of doc 2 (shared/roles/views.ts).

const dateTime = { type: 'string', format: 'date-time' } as const;

export const roleRef = {
  type: 'object',
  required: ['name', 'slug'],
  properties: { name: { type: 'string' }, slug: { type: 'string' } },
  additionalProperties: false,
} as const;

export const appRole = {
  type: 'object',
  required: [
    'id',
    'name',
    'slug',
    'description',
    'is_parent',
    'app_id',
    'app_name',
    'app_slug',
    'parent_id',
    'parent_role_slug',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: 'string' },
    is_parent: { type: 'boolean' },
    app_id: { type: 'integer' },
    app_name: { type: 'string' },
    app_slug: { type: 'string' },
    parent_id: { type: ['integer', 'null'] },
    parent_role_slug: { type: ['string', 'null'] },
    created_at: dateTime,
    updated_at: dateTime,
  },
  additionalProperties: false,
} as const;

export const siteRole = {
  type: 'object',
  required: ['id', 'name', 'slug', 'description', 'created_at', 'updated_at', 'app_roles'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: 'string' },
    created_at: dateTime,
    updated_at: dateTime,
    app_roles: { type: 'array', items: appRole },
  },
  additionalProperties: false,
} as const;

/** The spec's four fields and the membership's expiry (an addition: docs/api-decisions.md). */
export const holder = {
  type: 'object',
  required: ['username', 'email', 'first_name', 'last_name', 'expires_at'],
  properties: {
    username: { type: 'string' },
    email: { type: 'string' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    expires_at: { ...dateTime, type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;

export const userRoles = {
  type: 'object',
  required: ['app_roles', 'site_roles'],
  properties: { app_roles: { type: 'array', items: roleRef }, site_roles: { type: 'array', items: roleRef } },
  additionalProperties: false,
} as const;

/** Single item: `{status, message, data}`. */
export function itemOf<const S extends object>(data: S) {
  return {
    type: 'object',
    required: ['status', 'message', 'data'],
    properties: { status: { const: 'success' }, message: { type: 'string' }, data },
    additionalProperties: false,
  } as const;
}

/** List: `{status, message, data, total}`; `total` counts every match, not only this page. */
export function listOf<const S extends object>(item: S) {
  return {
    type: 'object',
    required: ['status', 'message', 'data', 'total'],
    properties: {
      status: { const: 'success' },
      message: { type: 'string' },
      data: { type: 'array', items: item },
      total: { type: 'integer', minimum: 0 },
    },
    additionalProperties: false,
  } as const;
}

/** Action: `{message, detail}`. */
export const action = {
  type: 'object',
  required: ['message', 'detail'],
  properties: { message: { type: 'string' }, detail: { type: 'string' } },
  additionalProperties: false,
} as const;

export const message = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
  additionalProperties: false,
} as const;

/** A bulk request of which some pairs failed: the others were applied. */
export const partialSuccess = {
  type: 'object',
  required: ['status', 'message', 'data'],
  properties: {
    status: { const: 'partial_success' },
    message: { type: 'string' },
    data: {
      type: 'object',
      required: ['failures'],
      properties: {
        failures: {
          type: 'array',
          items: {
            type: 'object',
            required: ['username', 'role', 'error'],
            properties: { username: { type: 'string' }, role: { type: 'string' }, error: { type: 'string' } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const bulkOutcome = { anyOf: [message, partialSuccess] } as const;
