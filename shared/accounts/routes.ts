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

const platform = { group: 'accounts', scope: 'platform' } as const;
const site = { group: 'accounts', scope: 'site' } as const;

export const accountRoutes: RouteDef[] = [
  {
    ...platform,
    operationId: 'getCurrentUser',
    permission: 'authenticated',
    method: 'GET',
    path: '/api/cloud/users/me/',
    summary: 'The signed-in user',
  },
  {
    ...platform,
    operationId: 'listUsers',
    permission: 'superuser',
    method: 'GET',
    path: '/api/cloud/users/',
    summary: 'All users',
    query: { type: 'object', properties: { ...pageQuery(20), search: { type: 'string' } } },
  },
  {
    ...platform,
    operationId: 'createUser',
    permission: 'superuser',
    method: 'POST',
    path: '/api/cloud/users/',
    summary: 'Create a user',
    body: newUserSchema,
  },
  {
    ...platform,
    operationId: 'getUser',
    permission: 'rule:self-or-superuser',
    method: 'GET',
    path: '/api/cloud/users/{user_id}/',
    summary: 'A user',
    params: userId,
  },
  {
    ...platform,
    operationId: 'updateUser',
    permission: 'rule:account-change',
    method: 'PATCH',
    path: '/api/cloud/users/{user_id}/',
    summary: "Change a user's names, password or flags; one's own password needs current_password",
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
    permission: 'authenticated',
    method: 'GET',
    path: '/api/cloud/organizations/',
    summary: 'Organizations of the signed-in user (all for superusers)',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...platform,
    operationId: 'createOrganization',
    permission: 'authenticated',
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
    permission: 'organization:member',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/',
    summary: 'An organization',
  },
  {
    ...platform,
    operationId: 'listMembers',
    permission: 'organization:member',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/members/',
    summary: 'Members of an organization',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...platform,
    operationId: 'addMember',
    permission: 'organization:admin',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/members/',
    summary:
      "Change a member's role; add an existing user or create one (superusers only: a check on the body)",
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
    permission: 'organization:owner',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/transfer-ownership/',
    summary: 'Make a member the owner; the previous owner becomes an admin',
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
    permission: 'organization:member',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/sites/',
    summary: 'Sites of an organization',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...platform,
    operationId: 'createSite',
    permission: 'organization:admin',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/sites/',
    summary: 'Create a site (tenant) in an organization',
    body: { type: 'object', required: ['name'], properties: { name, slug }, additionalProperties: false },
  },
  {
    ...platform,
    operationId: 'listSitePermissions',
    permission: 'organization:admin',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/sites/{site_slug}/permissions/',
    summary: 'Who holds which permissions on a site',
  },
  {
    ...platform,
    operationId: 'setSitePermissions',
    permission: 'organization:admin',
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
    permission: 'site:view',
    method: 'GET',
    path: '/api/apps/',
    summary: 'Apps of the site',
    query: { type: 'object', properties: pageQuery(20) },
  },
  {
    ...site,
    operationId: 'createApp',
    permission: 'site:configure',
    method: 'POST',
    path: '/api/apps/',
    summary: 'Create an app in the site',
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
    permission: 'site:view',
    method: 'GET',
    path: '/api/apps/{app_slug}/',
    summary: 'An app of the site',
  },
];
