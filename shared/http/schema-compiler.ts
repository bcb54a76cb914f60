import { Ajv, type Options } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { JsonSchema } from '../api/route';
import type { SchemaValidator } from './validation';

// ajv-formats ships CommonJS; under ESM interop the plugin may sit on `default`.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;

/**
 * The ajv of route schemas. Bodies are JSON: no coercion. Query strings and path parameters are text: coerced,
 * arrays accepted. The same options compile at start (local server, tests) and generate the Lambdas' validators
 * ahead of time (`npm run validators`), so both validate alike.
 */
export function createRouteAjv(coerce: boolean, extra: Options = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    ...extra,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = createRouteAjv(false);
const textAjv = createRouteAjv(true);

/** Compiles a route schema at run time: the compiler of the local server and the tests. */
export function compileSchema(schema: JsonSchema, coerce: boolean): SchemaValidator {
  return (coerce ? textAjv : bodyAjv).compile(schema);
}
