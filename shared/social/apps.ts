import { matches, pageOf, sortBy } from '../api/listing';
import { totalPages } from '../api/pagination';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Config } from '../config';
import { BadRequestError, type FieldErrors, NotFoundError, ValidationError } from '../errors';
import { seal } from '../keys/envelope';
import type { EncryptionContext, Keys } from '../keys/keys';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { nextId } from '../store/store';
import { hiddenSecret, providerKeyOf, type SocialAppSettings, type StoredSocialApp } from './model';
import { checkUrlShape, OutboundError } from './outbound';
import { isProviderName, providerDef, providerNames } from './providers';
import { countLinkedUsers, getApp, insertApp, listApps, removeApp, replaceApp } from './repository';

/** Social apps of a site: validation, the secret sealed at rest, the list and detail representations (doc 1). */
export type SocialDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly keys: Keys;
  readonly config: Config;
  readonly log: Logger;
};

export interface AppInput {
  provider?: string;
  provider_id?: string;
  name?: string;
  client_id?: string;
  secret?: string;
  key?: string;
  settings?: Record<string, string | boolean | null | undefined>;
}

/** The encryption context of an app's client secret; `~social` is no app slug, so no secret shares it. */
export function secretContext(site: string, id: number): EncryptionContext {
  return { site, app: '~social', key: `social-app-${id}` };
}

/** Whether the app has what a login needs: client id, secret and, for OpenID Connect, its server URL. */
export function isConfigured(app: StoredSocialApp): boolean {
  const base = app.client_id !== '' && app.secret.ciphertext !== '';
  return app.provider === 'openid_connect' ? base && Boolean(app.settings.server_url) : base;
}

function displayOf(app: StoredSocialApp): string {
  return providerDef(app.provider).display;
}

/** The detail representation; the secret shown only when the caller just sent it (create). */
export function detailView(app: StoredSocialApp, secret: string = hiddenSecret) {
  return {
    id: app.id,
    provider: app.provider,
    provider_id: app.provider_id,
    name: app.name,
    client_id: app.client_id,
    secret,
    key: app.key,
    settings: app.settings,
    provider_display: displayOf(app),
    is_configured: isConfigured(app),
  };
}

/** The list item: no client id, secret, key or settings; `icon` and `auto_redirect` flattened. */
export function listItemView(app: StoredSocialApp) {
  return {
    id: app.id,
    provider: app.provider,
    provider_id: app.provider_id,
    name: app.name,
    provider_display: displayOf(app),
    is_configured: isConfigured(app),
    ...(app.settings.icon !== undefined ? { icon: app.settings.icon } : {}),
    auto_redirect: app.settings.auto_redirect ?? false,
  };
}

const providerIdPattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Static segments of /api/auth/ that a provider id would shadow. */
const reservedProviderIds = new Set(['jwt', 'social-apps', 'social-accounts', ...providerNames]);

function providerIdErrors(providerId: string): string[] {
  if (providerId === '') return ['provider_id is required for the OpenID Connect provider.'];
  if (!providerIdPattern.test(providerId))
    return ['provider_id may contain lower-case letters, digits, "-" and "_" only (up to 64).'];
  if (reservedProviderIds.has(providerId)) return [`provider_id "${providerId}" is reserved.`];
  return [];
}

/** The spec's checks of a whole app (after a PATCH merged into it): messages by field. */
function appErrors(input: Required<Pick<AppInput, 'provider' | 'provider_id'>> & AppInput, deps: SocialDeps) {
  const fields: FieldErrors = {};
  if (!isProviderName(input.provider)) {
    fields.provider = [
      `"${input.provider}" is not a valid provider. Available providers: ${providerNames.join(', ')}.`,
    ];
    return fields;
  }
  if (input.provider !== 'openid_connect') return fields;
  const idErrors = providerIdErrors(input.provider_id);
  if (idErrors.length) fields.provider_id = idErrors;
  const serverUrl = input.settings?.server_url;
  if (typeof serverUrl !== 'string' || serverUrl === '') {
    fields.settings = ['server_url is required in settings for OpenID Connect.'];
  } else {
    const problem = serverUrlProblem(serverUrl, deps);
    if (problem) fields.settings = [problem];
  }
  return fields;
}

/**
 * What a write checks of `server_url`: only what needs no network (scheme, credentials, literal addresses, refused
 * names), so that a write never depends on DNS; every call checks the addresses again through its own lookup, and
 * `POST /api/auth/social-apps/{id}/check/` checks them on demand (checks.ts).
 */
function serverUrlProblem(serverUrl: string, deps: SocialDeps): string | undefined {
  try {
    const url = checkUrlShape(serverUrl, deps.config);
    if (!url.pathname.endsWith('/.well-known/openid-configuration'))
      return 'server_url must be the discovery document (ending in /.well-known/openid-configuration).';
    return undefined;
  } catch (error) {
    if (error instanceof OutboundError) return `server_url ${error.message}.`;
    throw error;
  }
}

function cleanSettings(settings: AppInput['settings']): SocialAppSettings {
  const clean: SocialAppSettings = {};
  if (typeof settings?.server_url === 'string') clean.server_url = settings.server_url;
  if (typeof settings?.icon === 'string') clean.icon = settings.icon;
  if (typeof settings?.auto_redirect === 'boolean') clean.auto_redirect = settings.auto_redirect;
  return clean;
}

export async function findApp(deps: SocialDeps, site: string, id: number): Promise<StoredSocialApp> {
  const app = await getApp(deps.store, site, id);
  if (!app) throw new NotFoundError();
  return app;
}

/** Registers a social app on the site; the answer echoes the secret that was sent, once. */
export async function createSocialApp(
  deps: SocialDeps,
  site: string,
  body: AppInput & { provider: string; name: string; client_id: string; secret: string },
) {
  const input = { ...body, provider_id: body.provider === 'openid_connect' ? (body.provider_id ?? '') : '' };
  const fields = appErrors(input, deps);
  if (Object.keys(fields).length) throw new ValidationError({ fields });
  const id = await nextId(deps.store, 'social-app');
  const now = iso(deps.clock());
  const app: StoredSocialApp = {
    id,
    site,
    provider: input.provider as StoredSocialApp['provider'],
    provider_id: input.provider_id,
    name: body.name,
    client_id: body.client_id,
    key: body.key ?? '',
    settings: cleanSettings(body.settings),
    secret: await seal(deps.keys, body.secret, secretContext(site, id)),
    created_at: now,
    updated_at: now,
  };
  await insertApp(deps.store, app);
  return { success: true, message: 'Social app created successfully.', data: detailView(app, body.secret) };
}

export interface AppListQuery {
  search?: string;
  provider?: string;
  ordering?: string;
  page: number;
  page_size: number;
}

/** The site's social apps, searched, filtered, ordered and paged, in the spec's envelope. */
export async function listSocialApps(deps: SocialDeps, site: string, query: AppListQuery) {
  const found = (await listApps(deps.store, site)).filter(
    (app) =>
      (query.provider === undefined || app.provider === query.provider) &&
      matches(query.search, app.name, app.provider, app.client_id, app.provider_id),
  );
  const sorted = sortBy(
    found,
    query.ordering ?? 'id',
    { id: (a) => a.id, name: (a) => a.name, provider: (a) => a.provider, provider_id: (a) => a.provider_id },
    (a) => a.id,
  );
  return {
    status: 'success',
    message: 'Social apps retrieved successfully.',
    data: pageOf(sorted, query.page, query.page_size).map(listItemView),
    total: found.length,
    pagination: {
      page: query.page,
      page_size: query.page_size,
      total_pages: totalPages(found.length, query.page_size),
    },
  };
}

export async function getSocialApp(deps: SocialDeps, site: string, id: number) {
  return detailView(await findApp(deps, site, id));
}

/** Merges `settings` (a key sent as null is removed); the other fields replace the stored ones when sent. */
function mergedSettings(
  stored: SocialAppSettings,
  sent: AppInput['settings'],
): Record<string, string | boolean | null | undefined> {
  const merged: Record<string, string | boolean | null | undefined> = { ...stored };
  for (const [name, value] of Object.entries(sent ?? {})) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

/** Changes an app; a new provider key is refused while users sign in with the old one. */
export async function updateSocialApp(deps: SocialDeps, site: string, id: number, body: AppInput) {
  const before = await findApp(deps, site, id);
  const provider = body.provider ?? before.provider;
  const settings = mergedSettings(before.settings, body.settings);
  const providerId = provider === 'openid_connect' ? (body.provider_id ?? before.provider_id) : '';
  const fields = appErrors({ ...body, provider, provider_id: providerId, settings }, deps);
  if (Object.keys(fields).length) throw new ValidationError({ fields });
  const after: StoredSocialApp = {
    ...before,
    provider: provider as StoredSocialApp['provider'],
    provider_id: providerId,
    name: body.name ?? before.name,
    client_id: body.client_id ?? before.client_id,
    key: body.key ?? before.key,
    settings: cleanSettings(settings),
    secret:
      body.secret === undefined ? before.secret : await seal(deps.keys, body.secret, secretContext(site, id)),
    updated_at: iso(deps.clock()),
  };
  if (providerKeyOf(after) !== providerKeyOf(before)) {
    const linked = await countLinkedUsers(deps.store, site, providerKeyOf(before));
    if (linked > 0)
      throw ValidationError.field(
        before.provider === 'openid_connect' && provider === 'openid_connect' ? 'provider_id' : 'provider',
        `The provider cannot change while ${linked} user(s) sign in with it.`,
      );
  }
  await replaceApp(deps.store, before, after);
  return { success: true, message: 'Social app updated successfully.', data: detailView(after) };
}

/** Deletes an app, unless users sign in with it (400 with the count, doc 1). */
export async function deleteSocialApp(deps: SocialDeps, site: string, id: number) {
  const app = await findApp(deps, site, id);
  const activeUsers = await countLinkedUsers(deps.store, site, providerKeyOf(app));
  if (activeUsers > 0) {
    const message = `Cannot delete this social app: ${activeUsers} user(s) sign in with it.`;
    throw new BadRequestError({
      code: 'social_app_in_use',
      message,
      body: {
        success: false,
        message,
        suggestion:
          'Keep the app until those users can sign in another way; change its credentials instead of deleting it.',
        active_users: activeUsers,
      },
    });
  }
  if (!(await removeApp(deps.store, app))) throw new NotFoundError();
  return { success: true, message: 'Social app deleted successfully.' };
}
