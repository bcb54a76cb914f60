import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { HttpResult } from '../api/result';
import type { RouteDef } from '../api/route';
import type { RequestContext } from './context';

/**
 * Operation types derived from the route table: a route's `as const` schemas give the body, query and path
 * parameters an operation sees, so a handwritten request type cannot drift from what the pipeline validates.
 * Defaults count as present (ajv fills them in before the operation runs).
 */

type Typed<S, Fallback> = S extends JSONSchema ? FromSchema<S> : Fallback;

/** The validated body of a route; `unknown` where the route ignores bodies. */
export type BodyOf<R> = R extends { readonly body: infer S } ? Typed<S, unknown> : unknown;

/** The validated, coerced query of a route. */
export type QueryOf<R> = R extends { readonly query: infer S }
  ? Typed<S, Record<string, unknown>>
  : Record<string, unknown>;

/** The `{names}` of a path template. */
type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/** The schema of one path parameter, where the route declares one (ajv coerces the text to its type). */
type ParamSchema<R, K extends string> = R extends { readonly params: { readonly properties: infer P } }
  ? K extends keyof P
    ? P[K]
    : undefined
  : undefined;

/** The path parameters of a route: text, or the type of the parameter's declared schema. */
export type ParamsOf<R extends { readonly path: string }> = {
  readonly [K in PathParamNames<R['path']>]: ParamSchema<R, K> extends JSONSchema
    ? FromSchema<ParamSchema<R, K>>
    : string;
};

/** The context of one route's operation. */
export type ContextOf<R extends RouteDef> = RequestContext<BodyOf<R>, QueryOf<R>, ParamsOf<R>>;

/**
 * The operations of a group typed from its routes: one per operationId, each given the context of its route.
 * Use it with `satisfies`, so the operations' `ctx` parameters take their types from the route table.
 */
export type TypedOperations<Routes extends readonly RouteDef[]> = {
  readonly [Id in Routes[number]['operationId']]: (
    ctx: ContextOf<Extract<Routes[number], { readonly operationId: Id }>>,
  ) => Promise<HttpResult>;
};
