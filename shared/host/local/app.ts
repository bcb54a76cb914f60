import type { Context } from 'aws-lambda';
import type { GroupName, RouteDef } from '../../api/route';
import type { Deps } from '../../deps';
import type { GroupRegistry } from '../../http/context';
import {
  createGroupPipeline,
  errorResponse,
  type GroupPipeline,
  type HttpEvent,
  type HttpResponse,
} from '../../http/handler';
import type { RouteMatch } from '../../http/router';
import { Router } from '../../http/router';
import { compileSchema } from '../../http/schema-compiler';
import { useSchemaCompiler } from '../../http/validation';
import { localMailRoutes, localMailService } from './mail';

export type Dispatch = (event: HttpEvent) => Promise<HttpResponse>;

/**
 * The whole API in one process: finds the endpoint group of a request from the route table (every group's manifest
 * routes) and calls that group's handler, as API Gateway would call the group's Lambda. The local host's own routes
 * (the Mail view's, ./mail.ts) come after the route table, in no manifest: the cloud never has them.
 */
export function createLocalApp(deps: Deps, groups: GroupRegistry): Dispatch {
  // Locally the route schemas compile at start, so an edited schema takes effect without `npm run validators`.
  useSchemaCompiler(compileSchema);
  const services = Object.values(groups);
  const router = new Router([...services.flatMap((service) => service.manifest.routes), ...localMailRoutes]);
  const handlers = new Map<GroupName, GroupPipeline>();
  for (const { manifest, operations } of services) {
    handlers.set(
      manifest.name,
      createGroupPipeline(manifest, operations, () => deps),
    );
  }
  const mail = localMailService(groups.accounts);
  const localRoutes = new Set<RouteDef>(localMailRoutes);
  const local = createGroupPipeline(mail.manifest, mail.operations, () => deps, localMailRoutes);
  return async (event) => {
    let match: RouteMatch;
    try {
      match = router.match(event.requestContext.http.method, event.rawPath);
    } catch (error) {
      // No route: API Gateway answers for no group; the local server answers in the auth group's envelope.
      return errorResponse(deps.log, groups.auth.manifest, error, event.requestContext.requestId);
    }
    const group = match.route.group;
    const handler = localRoutes.has(match.route) ? local : handlers.get(group);
    if (!handler) throw new Error(`No handler for group ${group}`);
    const context = { awsRequestId: event.requestContext.requestId, functionName: group } as Context;
    // The route is matched once: the group's table is part of this one, in the same order, so its own router would
    // find the same route.
    return handler(event, context, match);
  };
}
