import { created, ok } from '../../shared/api/result';
import { actingUser, siteContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { secretErrors } from '../../shared/secrets/errors';
import { historyOf, historyStart } from '../../shared/secrets/history';
import { filterSecrets, filterTypes, tagList } from '../../shared/secrets/listing';
import { defaultTagColor } from '../../shared/secrets/model';
import type { secretRoutes } from '../../shared/secrets/routes';
import {
  createSecretType,
  deleteSecretType,
  listSecretTypes,
  secretTypeOf,
  updateSecretType,
} from '../../shared/secrets/secret-types';
import {
  createSecret,
  deleteSecret,
  lookupSecret,
  plaintextOf,
  requireAnyTag,
  updateSecret,
} from '../../shared/secrets/secrets';
import { allSecrets } from '../../shared/secrets/store-helpers';
import { createTag, deleteTag, listTags, tagOf, updateTag } from '../../shared/secrets/tags';
import { action, itemsPage, secretView, tagView, typeView } from '../../shared/secrets/views';

const siteOf = (ctx: Parameters<typeof siteContext>[0]) => siteContext(ctx).access.site.slug;

/** The secret store's operations: types, secrets and tags of the request's site (docs/secrets.md). */
export const secretOperations = {
  listSecretTypes: async (ctx) => {
    const types = filterTypes(await listSecretTypes(ctx.deps, siteOf(ctx)), ctx.query);
    return ok(itemsPage(ctx, types.map(typeView)));
  },
  createSecretType: async (ctx) => {
    const type = await createSecretType(ctx.deps, siteOf(ctx), ctx.body);
    return created({
      status: 'success',
      message: 'Secret type created successfully',
      data: { type: type.type, name: type.name, slug: type.slug, sensitivity_level: type.sensitivity_level },
    });
  },
  getSecretType: async (ctx) => ok(typeView(await secretTypeOf(ctx.deps, siteOf(ctx), ctx.params.slug))),
  updateSecretType: async (ctx) =>
    ok(typeView(await updateSecretType(ctx.deps, siteOf(ctx), ctx.params.slug, ctx.body))),
  deleteSecretType: async (ctx) => {
    const type = await deleteSecretType(ctx.deps, siteOf(ctx), ctx.params.slug);
    return ok(action('Secret type deleted successfully', `Secret type "${type.name}" was deleted.`));
  },
  listSecrets: async (ctx) => {
    const secrets = filterSecrets(await allSecrets(ctx.deps.store, siteOf(ctx)), ctx.query);
    const page = itemsPage(ctx, secrets);
    const items = await Promise.all(
      page.items.map(async (secret) => secretView(secret, await plaintextOf(ctx.deps, secret))),
    );
    return ok({ ...page, items });
  },
  createSecret: async (ctx) => {
    const secret = await createSecret(ctx.deps, siteOf(ctx), actingUser(ctx).username, ctx.body);
    return created(secretView(secret, ctx.body.value));
  },
  getSecret: async (ctx) => {
    const secret = await lookupSecret(ctx.deps, siteOf(ctx), ctx.params.key, ctx.query.app ?? null);
    // The route lets anonymous callers through (rule:secret-read): they only ever see public values. An API key
    // passed `view` on its site, as a user would.
    if (!ctx.user && !ctx.key && secret.sensitivity_level !== 'public') throw secretErrors.notPublic();
    requireAnyTag(secret, tagList(ctx.query.tags));
    return ok(secretView(secret, await plaintextOf(ctx.deps, secret)));
  },
  updateSecret: async (ctx) => {
    const where = { key: ctx.params.key, app: ctx.query.app ?? null };
    const secret = await updateSecret(ctx.deps, siteOf(ctx), actingUser(ctx).username, where, ctx.body);
    return ok(secretView(secret, ctx.body.value));
  },
  deleteSecret: async (ctx) => {
    const where = { key: ctx.params.key, app: ctx.query.app ?? null };
    await deleteSecret(ctx.deps, siteOf(ctx), actingUser(ctx).username, where);
    const level = where.app === null ? 'site level' : `app "${where.app}"`;
    return ok(action('Secret deleted successfully', `Secret "${where.key}" was deleted at ${level}.`));
  },
  secretHistory: async (ctx) => {
    const app = ctx.query.app ?? null;
    const site = siteContext(ctx).access.site;
    const since = await historyStart(ctx.deps.store, site, app);
    const records =
      since === undefined ? [] : await historyOf(ctx.deps.store, site.slug, app, ctx.params.key, since);
    if (records.length === 0) throw secretErrors.secretNotFound(ctx.params.key, app);
    const { limit, offset } = ctx.query;
    return ok({
      key: ctx.params.key,
      app,
      results: records.slice(offset, offset + limit),
      total_count: records.length,
      limit,
      offset,
      has_next: offset + limit < records.length,
      has_previous: offset > 0,
    });
  },
  listTags: async (ctx) => ok((await listTags(ctx.deps, siteOf(ctx))).map(tagView)),
  createTag: async (ctx) => created(tagView(await createTag(ctx.deps, siteOf(ctx), ctx.body))),
  getTag: async (ctx) => ok(tagView(await tagOf(ctx.deps, siteOf(ctx), ctx.params.slug))),
  replaceTag: async (ctx) => {
    // PUT replaces: what is left out goes back to its default.
    const { name, description = '', color = defaultTagColor } = ctx.body;
    return ok(tagView(await updateTag(ctx.deps, siteOf(ctx), ctx.params.slug, { name, description, color })));
  },
  patchTag: async (ctx) => ok(tagView(await updateTag(ctx.deps, siteOf(ctx), ctx.params.slug, ctx.body))),
  deleteTag: async (ctx) => {
    const tag = await deleteTag(ctx.deps, siteOf(ctx), ctx.params.slug);
    return ok(
      action('Tag deleted successfully', `Tag "${tag.name}" was deleted and removed from its secrets.`),
    );
  },
} satisfies TypedOperations<typeof secretRoutes>;
