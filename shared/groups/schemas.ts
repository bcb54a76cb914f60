/** Request and response schemas of organization groups (JSON Schema; request types derive from them). */

import { member, userIdParams } from '../accounts/schemas';
import { idSchema } from '../api/numbers';
import { slugMaxLength, slugPattern } from '../slug';

const id = idSchema;
const dateTime = { type: 'string', format: 'date-time' } as const;
const slug = { type: 'string', pattern: slugPattern, maxLength: slugMaxLength } as const;

/** A group's name: what invitations name it by (their entries allow the same length). */
export const groupName = { type: 'string', minLength: 1, maxLength: 150 } as const;

export const groupParams = { type: 'object', properties: { group_slug: slug } } as const;
export const groupMemberParams = {
  type: 'object',
  properties: { ...groupParams.properties, ...userIdParams.properties },
} as const;

export const newGroupBody = {
  type: 'object',
  required: ['name'],
  properties: { name: groupName, slug },
  additionalProperties: false,
} as const;

export const groupChangesBody = {
  type: 'object',
  required: ['name'],
  properties: { name: groupName },
  additionalProperties: false,
} as const;

export const groupMemberBody = {
  type: 'object',
  required: ['user_id'],
  properties: { user_id: id },
  additionalProperties: false,
} as const;

export const group = {
  type: 'object',
  required: ['id', 'slug', 'name', 'organization_id', 'organization_slug', 'created_at', 'updated_at'],
  properties: {
    id,
    slug: { type: 'string' },
    name: { type: 'string' },
    organization_id: id,
    organization_slug: { type: 'string' },
    created_at: dateTime,
    updated_at: dateTime,
  },
  additionalProperties: false,
} as const;

/** A member of a group, shown as the organization's member list shows people to the caller. */
export const groupMember = {
  type: 'object',
  required: ['group', 'user_id', 'added_at', 'user'],
  properties: {
    group: { type: 'string' },
    user_id: id,
    added_at: dateTime,
    user: member.properties.user,
  },
  additionalProperties: false,
} as const;
