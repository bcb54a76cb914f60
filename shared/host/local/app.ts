import type { Context } from 'aws-lambda';
import type { GroupName } from '../../api/route';
import type { Deps } from '../../deps';
import type { OperationsByGroup } from '../../http/context';
import {
  createGroupHandler,
  errorResponse,
  type HttpEvent,
  type HttpHandler,
  type HttpResponse,
} from '../../http/handler';
import { Router } from '../../http/router';
import { routes, routesOf } from '../../http/routes';
import { compileSchema } from '../../http/schema-compiler';
import { useSchemaCompiler } from '../../http/validation';

export type Dispatch = (event: HttpEvent) => Promise<HttpResponse>;

/**
 * The whole API in one process: finds the endpoint group of a request from the route table and calls that group's
 * handler, as API Gateway would call the group's Lambda.
 */
export function createLocalApp(deps: Deps, operations: OperationsByGroup): Dispatch {
  // Locally the route schemas compile at start, so an edited schema takes effect without `npm run validators`.
  useSchemaCompiler(compileSchema);
  const router = new Router(routes);
  const handlers = new Map<GroupName, HttpHandler>();
  for (const group of Object.keys(operations) as GroupName[]) {
    handlers.set(
      group,
      createGroupHandler(group, operations[group], () => deps, routesOf(group)),
    );
  }
  return async (event) => {
    let group: GroupName;
    try {
      group = router.match(event.requestContext.http.method, event.rawPath).route.group;
    } catch (error) {
      return errorResponse(deps.log, 'auth', error, event.requestContext.requestId);
    }
    const handler = handlers.get(group);
    if (!handler) throw new Error(`No handler for group ${group}`);
    const context = { awsRequestId: event.requestContext.requestId, functionName: group } as Context;
    return handler(event, context);
  };
}
