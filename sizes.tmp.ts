import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { transformSync } from 'esbuild';
import { createRouteAjv } from './shared/http/schema-compiler';
import { coerces, validatorName } from './shared/http/validation';
import { routesOf } from './shared/http/routes';
const standaloneCode = ((standaloneCodeModule as any).default ?? standaloneCodeModule) as typeof standaloneCodeModule;
const group = process.argv[2] as never;
const rows: [string, number][] = [];
const seen = new Set<string>();
for (const route of routesOf(group)) for (const part of ['body','query','params'] as const) {
  const schema = (route as any)[part]; if (!schema) continue;
  const s = JSON.stringify(schema); if (seen.has(s)) continue; seen.add(s);
  const ajv = createRouteAjv(coerces(part), { code: { source: true, esm: true }, messages: process.env.MSG !== '0', allErrors: process.env.ALL !== '0' });
  ajv.addSchema(schema, 'x');
  const code = standaloneCode(ajv, { x: 'x' });
  rows.push([validatorName(route.operationId, part), transformSync(code, { minify: true }).code.length]);
}
let total = 0; for (const [,v] of rows) total += v;
console.log('total', (total/1024).toFixed(1));
for (const [k, v] of rows.sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${(v/1024).toFixed(1)} ${k}`);
