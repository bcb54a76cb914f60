import { describe, expectTypeOf, it } from 'vitest';
import type { accountRoutes } from '../../shared/accounts/routes';
import type { HttpResult } from '../../shared/api/result';
import type { dataRoutes } from '../../shared/data/routes';
import type { ContextOf, TypedOperations } from '../../shared/http/typed-operations';
import type { roleRoutes } from '../../shared/roles/routes';

/** The route of an operationId in a group's route table, as its `as const` declaration types it. */
type RouteOf<Routes extends readonly { operationId: string }[], Id extends string> = Extract<
  Routes[number],
  { operationId: Id }
>;

// Checked by `npm run typecheck` (tsc reads the test files); at run time these assertions do nothing.
describe('operation contexts typed from their routes', () => {
  it('types the body from the route schema, optional fields optional', () => {
    type Assign = ContextOf<RouteOf<typeof roleRoutes, 'assignRoles'>>;
    expectTypeOf<Assign['body']>().toEqualTypeOf<{
      roles: string[];
      usernames: string[];
      expires_at?: string | null;
    }>();
  });

  it('counts query parameters with a default as present, as the validator fills them in', () => {
    type Records = ContextOf<RouteOf<typeof dataRoutes, 'listRecords'>>;
    expectTypeOf<Records['query']['page']>().toEqualTypeOf<number>();
    expectTypeOf<Records['query']['include_deleted']>().toEqualTypeOf<boolean>();
  });

  it('types path parameters as text, or as their declared schema (coerced)', () => {
    type GetUser = ContextOf<RouteOf<typeof accountRoutes, 'getUser'>>;
    expectTypeOf<keyof GetUser['params']>().toEqualTypeOf<'user_id'>();
    expectTypeOf<GetUser['params']['user_id']>().toEqualTypeOf<number>();
    type Member = ContextOf<RouteOf<typeof roleRoutes, 'getAppRole'>>;
    expectTypeOf<keyof Member['params']>().toEqualTypeOf<'app_slug' | 'role_slug'>();
    expectTypeOf<Member['params']['role_slug']>().toEqualTypeOf<string>();
  });

  it('asks one operation per route of the group', () => {
    expectTypeOf<keyof TypedOperations<typeof roleRoutes>>().toEqualTypeOf<
      (typeof roleRoutes)[number]['operationId']
    >();
    expectTypeOf<TypedOperations<typeof roleRoutes>['getAppRole']>().returns.toEqualTypeOf<
      Promise<HttpResult>
    >();
  });
});
