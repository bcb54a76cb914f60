import type { Operations } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { explorerAsset, explorerPage } from '../../shared/meta/explorer';
import { checkHealth } from '../../shared/meta/health';
import type { metaRoutes } from '../../shared/meta/routes';

/** Built on first use and kept: the route table does not change while a container lives. */
let document: string | undefined;

/**
 * The document describes every group's routes: every group's manifest (the whole route table) is loaded on the first request for it, not at
 * the meta function's cold start (in the Lambda bundle it is a chunk of its own, infra/bundling.ts).
 */
async function describeApi(): Promise<string> {
  const [{ openApiDocument }, { groups }] = await Promise.all([
    import('../../shared/http/openapi'),
    import('../groups'),
  ]);
  return JSON.stringify(openApiDocument(Object.values(groups)));
}

async function served() {
  document ??= await describeApi();
  return {
    status: 200,
    raw: { contentType: 'application/json', body: document },
    headers: { 'cache-control': 'public, max-age=300' },
  };
}

export const metaOperations: Operations = {
  openApiDocument: served,
  openApiDocumentAlias: served,

  async apiExplorer() {
    return {
      status: 200,
      raw: {
        contentType: 'text/html; charset=utf-8',
        body: explorerPage('/ninja-openapi.json', '/ninja-docs/'),
      },
      headers: { 'cache-control': 'no-cache' },
    };
  },

  async apiExplorerAsset(ctx) {
    const asset = explorerAsset(ctx.params.asset);
    return {
      status: 200,
      raw: asset,
      headers: { 'cache-control': 'public, max-age=86400' },
    };
  },

  async health(ctx) {
    const report = await checkHealth(ctx.deps);
    return {
      status: report.status === 'ok' ? 200 : 503,
      body: report,
      headers: { 'cache-control': 'no-store' },
    };
  },
} satisfies TypedOperations<typeof metaRoutes>;
