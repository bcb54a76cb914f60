import { orderings } from '../api/listing';
import { pageQuery } from '../api/pagination';

/** Request and response schemas of social apps and provider login (doc 1; docs/social-login.md). */

const settingsFields = {
  server_url: { type: 'string', maxLength: 2000 },
  icon: { type: 'string', maxLength: 2000 },
  auto_redirect: { type: 'boolean' },
} as const;

/** The fields a create request may send (the provider's own rules are checked by the service). */
const appFields = {
  provider: { type: 'string', minLength: 1, maxLength: 64 },
  provider_id: { type: 'string', maxLength: 64 },
  name: { type: 'string', minLength: 1, maxLength: 200 },
  client_id: { type: 'string', minLength: 1, maxLength: 500 },
  secret: { type: 'string', minLength: 1, maxLength: 2000 },
  key: { type: 'string', maxLength: 2000 },
  settings: { type: 'object', properties: settingsFields, additionalProperties: false },
} as const;

export const createAppBody = {
  type: 'object',
  required: ['provider', 'name', 'client_id', 'secret'],
  properties: appFields,
  additionalProperties: false,
} as const;

/** PATCH: any subset; in `settings`, a key set to null is removed and the keys not sent are kept (merge). */
export const updateAppBody = {
  type: 'object',
  properties: {
    ...appFields,
    settings: {
      type: 'object',
      properties: {
        server_url: { type: ['string', 'null'], maxLength: 2000 },
        icon: { type: ['string', 'null'], maxLength: 2000 },
        auto_redirect: { type: ['boolean', 'null'] },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const appOrderings = ['id', 'name', 'provider', 'provider_id'] as const;

export const listAppsQuery = {
  type: 'object',
  properties: {
    search: { type: 'string', maxLength: 200 },
    provider: { type: 'string', maxLength: 64 },
    ordering: { type: 'string', enum: orderings(appOrderings) },
    ...pageQuery(10, 100),
  },
  additionalProperties: true,
} as const;

export const appIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, maximum: 1e12 } },
} as const;

const settingsSchema = {
  type: 'object',
  properties: settingsFields,
  additionalProperties: false,
} as const;

export const appDetail = {
  type: 'object',
  required: ['id', 'provider', 'provider_id', 'name', 'client_id', 'secret', 'key', 'settings'],
  properties: {
    id: { type: 'integer' },
    provider: { type: 'string' },
    provider_id: { type: 'string' },
    name: { type: 'string' },
    client_id: { type: 'string' },
    secret: { type: 'string', description: '`***HIDDEN***` except in the create response' },
    key: { type: 'string' },
    settings: settingsSchema,
    provider_display: { type: 'string' },
    is_configured: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

export const appListItem = {
  type: 'object',
  required: ['id', 'provider', 'provider_id', 'name', 'provider_display', 'is_configured', 'auto_redirect'],
  properties: {
    id: { type: 'integer' },
    provider: { type: 'string' },
    provider_id: { type: 'string' },
    name: { type: 'string' },
    provider_display: { type: 'string' },
    is_configured: { type: 'boolean' },
    icon: { type: 'string' },
    auto_redirect: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

export const appList = {
  type: 'object',
  required: ['status', 'message', 'data', 'total', 'pagination'],
  properties: {
    status: { type: 'string' },
    message: { type: 'string' },
    data: { type: 'array', items: appListItem },
    total: { type: 'integer' },
    pagination: {
      type: 'object',
      required: ['page', 'page_size', 'total_pages'],
      properties: {
        page: { type: 'integer' },
        page_size: { type: 'integer' },
        total_pages: { type: 'integer' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const appChanged = {
  type: 'object',
  required: ['success', 'message', 'data'],
  properties: { success: { type: 'boolean' }, message: { type: 'string' }, data: appDetail },
  additionalProperties: false,
} as const;

export const appDeleted = {
  type: 'object',
  required: ['success', 'message'],
  properties: { success: { type: 'boolean' }, message: { type: 'string' } },
  additionalProperties: false,
} as const;

/** `{provider}` of the login paths: a provider, or an OpenID Connect app's `provider_id`. */
export const providerParams = {
  type: 'object',
  required: ['provider'],
  properties: { provider: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' } },
} as const;

export const redirectQuery = {
  type: 'object',
  required: ['redirect_uri'],
  properties: {
    redirect_uri: {
      type: 'string',
      maxLength: 2000,
      pattern: '^https?://',
      description: 'Where the provider sends the browser back with `code` and `state` (the client app)',
    },
  },
  additionalProperties: true,
} as const;

export const redirectAnswer = {
  type: 'object',
  required: ['authorization_url', 'state', 'expires_in'],
  properties: {
    authorization_url: { type: 'string' },
    state: { type: 'string' },
    expires_in: { type: 'integer', description: 'Seconds the state stays valid' },
    link: {
      type: 'boolean',
      description:
        'True when a signed-in user started it: the token exchange links the provider account to that user',
    },
  },
  additionalProperties: false,
} as const;

export const exchangeBody = {
  type: 'object',
  required: ['code', 'state'],
  properties: {
    code: { type: 'string', minLength: 1, maxLength: 4096 },
    state: { type: 'string', minLength: 1, maxLength: 128 },
    /** A browser drives this login: also start a browser session (the `sessionid` cookie). */
    session: { type: 'boolean', default: false },
  },
  additionalProperties: false,
} as const;

/** One provider account linked to the caller (`/api/auth/social-accounts/`). */
const socialAccountFields = {
  type: 'object',
  required: ['id', 'provider', 'site', 'uid', 'email', 'created'],
  properties: {
    id: { type: 'integer' },
    provider: { type: 'string', description: 'The provider key of the login paths' },
    site: { type: 'string', description: 'The site whose social app made the link' },
    uid: { type: 'string', description: "The provider's id of the account" },
    email: { type: 'string', description: 'The address the provider gave when the link was made' },
    created: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
} as const;

export const exchangeAnswer = {
  type: 'object',
  required: ['access', 'refresh', 'user'],
  properties: {
    access: { type: 'string' },
    refresh: { type: 'string' },
    user: {
      type: 'object',
      required: ['id', 'username', 'email'],
      properties: {
        id: { type: 'integer' },
        uuid: { type: 'string' },
        username: { type: 'string' },
        email: { type: 'string' },
        first_name: { type: 'string' },
        last_name: { type: 'string' },
      },
      additionalProperties: true,
    },
    created: { type: 'boolean', description: 'Whether this sign-in created the user' },
    social_account: { ...socialAccountFields, description: 'An explicit link: the link it made (or found)' },
  },
  additionalProperties: false,
} as const;

export const socialAccountsQuery = {
  type: 'object',
  properties: pageQuery(20),
  additionalProperties: false,
} as const;

export const socialAccountList = {
  type: 'object',
  required: ['count', 'next', 'previous', 'results'],
  properties: {
    count: { type: 'integer' },
    next: { type: ['string', 'null'] },
    previous: { type: ['string', 'null'] },
    results: { type: 'array', items: socialAccountFields },
  },
  additionalProperties: false,
} as const;

export const socialAccountParams = appIdParams;

/** The explicit check of a saved app (not in the spec). */
export const appCheck = {
  type: 'object',
  required: ['ok', 'checks'],
  properties: {
    ok: { type: 'boolean', description: 'Every check passed' },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'ok', 'detail'],
        properties: {
          name: { type: 'string' },
          ok: { type: 'boolean' },
          detail: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;
