/** Request and response schemas of the invitations group (JSON Schema; request types derive from them). */

import { sitePermissions } from '../accounts/model';
import { passwordMaxLength } from '../accounts/password-policy';
import { idSchema } from '../api/numbers';
import { pageQuery } from '../api/pagination';
import { maxInvitationGroups } from '../groups/model';
import { groupName } from '../groups/schemas';

/** The most site grants one invitation may carry (see `invitationConfig`). */
export const maxInvitationSites = 75;

const id = idSchema;
const dateTime = { type: 'string', format: 'date-time' } as const;

const siteGrant = {
  type: 'object',
  required: ['slug', 'permissions'],
  properties: {
    slug: { type: 'string', minLength: 1, maxLength: 100 },
    permissions: {
      type: 'array',
      maxItems: sitePermissions.length,
      items: { type: 'string', enum: [...sitePermissions] },
    },
  },
  additionalProperties: false,
} as const;

export const invitationConfig = {
  type: 'object',
  properties: {
    // Acceptance is one transaction of at most 100 items: the invitation, the user, a placeholder's mark, the
    // membership, one per group and one per site (99 at most).
    group: { type: 'array', maxItems: maxInvitationGroups, items: groupName },
    site: { type: 'array', maxItems: maxInvitationSites, items: siteGrant },
  },
  additionalProperties: false,
} as const;

export const newInvitationBody = {
  type: 'object',
  required: ['invitee_identifier'],
  properties: {
    invitee_identifier: { type: 'string', format: 'email', maxLength: 254 },
    invitation_config: invitationConfig,
  },
  additionalProperties: false,
} as const;

export const listInvitationsQuery = {
  type: 'object',
  properties: {
    invitee__is_active: { type: 'boolean' },
    search: { type: 'string', maxLength: 254 },
    ordering: { type: 'string', enum: ['created', '-created'] },
    ...pageQuery(20),
  },
} as const;

/**
 * The resend path's `{invitation_id}`: the invitation's uuid, in the segment the specification calls `{user_id}`
 * (invitees' user ids are not shown before acceptance; docs/api-decisions.md). Any other value, a user id included,
 * is the specification's 400 naming `user_id` of "no pending invitation".
 */
export const resendParams = {
  type: 'object',
  properties: { invitation_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export const acceptBody = {
  type: 'object',
  required: ['password', 'first_name', 'last_name'],
  properties: {
    password: { type: 'string', minLength: 1, maxLength: passwordMaxLength },
    first_name: { type: 'string', minLength: 1, maxLength: 150 },
    last_name: { type: 'string', minLength: 1, maxLength: 150 },
  },
  additionalProperties: false,
} as const;

const personProperties = {
  id,
  uuid: { type: 'string' },
  username: { type: 'string' },
  email: { type: 'string' },
  first_name: { type: 'string' },
  last_name: { type: 'string' },
} as const;

const person = {
  type: 'object',
  required: ['id', 'uuid', 'username', 'email', 'first_name', 'last_name'],
  properties: personProperties,
  additionalProperties: false,
} as const;

const inviteeUser = {
  type: ['object', 'null'],
  required: ['id', 'uuid', 'username', 'email', 'first_name', 'last_name', 'is_active'],
  properties: { ...personProperties, is_active: { type: 'boolean' } },
  additionalProperties: false,
} as const;

const invitationProperties = {
  id,
  uuid: { type: 'string', format: 'uuid' },
  organization: id,
  organization_name: { type: 'string' },
  invitee_identifier: { type: 'string' },
  invited_by: id,
  invitee: { type: ['integer', 'null'] },
  invitee_user: inviteeUser,
  config: {
    type: 'object',
    required: ['group', 'site'],
    properties: invitationConfig.properties,
    additionalProperties: false,
  },
  created: dateTime,
} as const;

const listedFields = [
  'id',
  'uuid',
  'organization',
  'organization_name',
  'invitee_identifier',
  'invited_by',
  'invitee',
  'invitee_user',
  'config',
  'created',
] as const;

/** A list item: the invitation without `invited_by_user`. */
export const listedInvitation = {
  type: 'object',
  required: listedFields,
  properties: invitationProperties,
  additionalProperties: false,
} as const;

/** The invitation with the inviter (create response and the organization's detail view). */
export const invitation = {
  type: 'object',
  required: [...listedFields, 'invited_by_user'],
  properties: { ...invitationProperties, invited_by_user: person },
  additionalProperties: false,
} as const;

/** The public details: the inviter without its uuid. */
export const publicInvitation = {
  type: 'object',
  required: [...listedFields, 'invited_by_user'],
  properties: {
    ...invitationProperties,
    invited_by_user: {
      type: 'object',
      required: ['id', 'username', 'email', 'first_name', 'last_name'],
      properties: {
        id,
        username: { type: 'string' },
        email: { type: 'string' },
        first_name: { type: 'string' },
        last_name: { type: 'string' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const invitationPage = {
  type: 'object',
  required: ['count', 'next', 'previous', 'results'],
  properties: {
    count: { type: 'integer', minimum: 0 },
    next: { type: ['string', 'null'] },
    previous: { type: ['string', 'null'] },
    results: { type: 'array', items: listedInvitation },
  },
  additionalProperties: false,
} as const;

export const resendResult = {
  type: 'object',
  required: ['status', 'message'],
  properties: { status: { type: 'string' }, message: { type: 'string' } },
  additionalProperties: false,
} as const;

export const acceptResult = {
  type: 'object',
  required: ['success', 'message', 'user', 'organization'],
  properties: {
    success: { const: true },
    message: { type: 'string' },
    user: {
      type: 'object',
      required: ['id', 'email', 'first_name', 'last_name'],
      properties: {
        id,
        email: { type: 'string' },
        first_name: { type: 'string' },
        last_name: { type: 'string' },
      },
      additionalProperties: false,
    },
    organization: {
      type: 'object',
      required: ['id', 'slug', 'name'],
      properties: { id, slug: { type: 'string' }, name: { type: 'string' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;
