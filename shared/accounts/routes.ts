import { passwordMaxLength, passwordMinLength } from '../auth/password-policy';
import { pageQuery } from '../http/pagination';
import type { RouteDef } from '../http/route';
import { slugMaxLength, slugPattern } from '../slug';
import { sitePermissions } from './model';
import { usernamePattern } from './users';

const slug = { type: 'string', pattern: slugPattern, maxLength: slugMaxLength } as const;
const name = { type: 'string', minLength: 1, maxLength: 100 } as const;
const userId = { type: 'object', properties: { user_id: { type: 'integer', minimum: 1 } } } as const;

export const newUserSchema = {
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

const platform = { group: 'accounts', scope: 'platform', auth: 'bearer' } as const;
const site = { group: 'accounts', scope: 'site', auth: 'bearer' } as const;

export const accountRoutes: RouteDef[] = [
  {
    ...platform,
    operationId: 'getCurrentUser',
    method: 'GET',
    path: '/api/cloud/users/me/',
    summary: 'The signed-in user',
  },
  {
    ...platform,
    operationId: 'listUsers',
    method: 'GET',
    path: '/api/cloud/users/',
    summary: 'All users (superusers)',
    query: { type: 'object', properties: { ...pageQuery(20), search: { type: 'string' } } },
  },
  {
    ...platform,
    operationId: 'createUser',
    method: 'POST',
    path: '/api/cloud/users/',
    summary: 'Create a user (superusers)',
    body: newUserSchema,
  },
  {
    ...platform,
    operationId: 'getUser',
    method: 'GET',
    path: '/api/cloud/users/{user_id}/',
    summary: 'A user (superusers, or the user itself)',
    params: userId,
  },
  {
    ...platform,
    operationId: 'updateUser',
    method: 'PATCH',
    path: '/api/cloud/users/{user_id}/',
    summary:
      "Change a user's names, password or flags (flags: superusers only; one's own password needs current_password)",
    params: userId,
    body: {
      type: 'object',
      properties: {
        current_password: { type: 'string', minLength: 1, maxLength: 1024 },
        password: newUserSchema.properties.password,
        first_name: newUserSchema.properties.first_name,
        last_name: newUserSchema.properties.last_name,
        is_superuser: { type: 'boolean' },
        is_active: { type: 'boolean' },
      },
      additionalProperties: false,
    },
  },
  {
    ...platform,
    operationId: 'listOrganizations',
    method: 'GET',
    path: '/api/cloud/organizations/',
    summary: 'Organizations of the signed-in user (all for superusers)',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...platform,
    operationId: 'createOrganization',
    method: 'POST',
    path: '/api/cloud/organizations/',
    summary: 'Create an organization; the caller becomes its owner',
    body: {
      type: 'object',
      required: ['name'],
      properties: { name, slug },
      additionalProperties: false,
    },
  },
  {
    ...platform,
    operationId: 'getOrganization',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/',
    summary: 'An organization (members and superusers)',
  },
  {
    ...platform,
    operationId: 'listMembers',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/members/',
    summary: 'Members of an organization',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...platform,
    operationId: 'addMember',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/members/',
    summary: "Change a member's role (owners and admins); add an existing user or create one (superusers)",
    body: {
      type: 'object',
      properties: {
        user_id: { type: 'integer', minimum: 1 },
        email: newUserSchema.properties.email,
        username: newUserSchema.properties.username,
        password: newUserSchema.properties.password,
        first_name: newUserSchema.properties.first_name,
        last_name: newUserSchema.properties.last_name,
        role: { type: 'string', enum: ['owner', 'admin', 'member'], default: 'member' },
      },
      additionalProperties: false,
    },
  },
  {
    ...platform,
    operationId: 'transferOwnership',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/transfer-ownership/',
    summary: 'Make a member the owner; the previous owner becomes an admin (the owner, superusers)',
    body: {
      type: 'object',
      required: ['user_id'],
      properties: { user_id: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    },
  },
  {
    ...platform,
    operationId: 'listSites',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/sites/',
    summary: 'Sites of an organization',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...platform,
    operationId: 'createSite',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/sites/',
    summary: 'Create a site (tenant) in an organization (owners, admins and superusers)',
    body: { type: 'object', required: ['name'], properties: { name, slug }, additionalProperties: false },
  },
  {
    ...platform,
    operationId: 'listSitePermissions',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/sites/{site_slug}/permissions/',
    summary: 'Who holds which permissions on a site',
  },
  {
    ...platform,
    operationId: 'setSitePermissions',
    method: 'PUT',
    path: '/api/cloud/organizations/{org_slug}/sites/{site_slug}/permissions/{user_id}/',
    summary: "Replace a member's permissions on a site",
    params: userId,
    body: {
      type: 'object',
      required: ['permissions'],
      properties: {
        permissions: {
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', enum: [...sitePermissions] },
        },
      },
      additionalProperties: false,
    },
  },
  {
    ...site,
    operationId: 'listApps',
    method: 'GET',
    path: '/api/apps/',
    summary: 'Apps of the site',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...site,
    operationId: 'createApp',
    method: 'POST',
    path: '/api/apps/',
    summary: 'Create an app in the site (manage_site)',
    body: {
      type: 'object',
      required: ['name'],
      properties: { name, slug, description: { type: 'string', maxLength: 1000 } },
      additionalProperties: false,
    },
  },
  {
    ...site,
    operationId: 'getApp',
    method: 'GET',
    path: '/api/apps/{app_slug}/',
    summary: 'An app of the site',
  },
];
