// Checks package-lock.json: every dependency package.json declares has an entry (else `npm ci` stops with
// "Missing: … from lock file" on any machine whose registry has that package), every package accepts the Node.js
// versions the project supports (so `npm install` prints no EBADENGINE warning on any of them), and every package
// with an install script is one that was reviewed.
//   node .ci/check-lock.mjs   -> exit 1 naming each problem
// The supported versions are the lowest of each major that package.json's `engines.node` admits (20.19.0 and
// 22.13.0 for "^20.19.0 || >=22.13.0"), the Lambda runtime's Node.js we test the bundles on (24), and the Node.js running this check.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// semver comes with the install (npm's own range grammar); the check runs after `npm ci`.
const semver = require('semver');

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
const project = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const range = project.engines.node;
const lambdaNode = process.env.LAMBDA_NODE_VERSION ?? '24.22.3';

const floors = range
  .split('||')
  .map((part) => semver.minVersion(part.trim())?.version)
  .filter(Boolean);
const versions = [...new Set([...floors, lambdaNode, process.versions.node])];
for (const version of versions) {
  if (!semver.satisfies(version, range)) {
    console.error(`engines: ${version} is not in package.json's engines.node (${range})`);
    process.exitCode = 1;
  }
}

for (const kind of ['dependencies', 'devDependencies', 'optionalDependencies']) {
  for (const name of Object.keys(project[kind] ?? {})) {
    if (!lock.packages[`node_modules/${name}`]) {
      console.error(
        `lock: ${name} (${kind}) has no entry in package-lock.json (docs/local-runtime.md, Dynoxide)`,
      );
      process.exitCode = 1;
    }
  }
}

let refused = 0;
const scripts = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!path) continue;
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  if (entry.hasInstallScript) scripts.push(`${name}@${entry.version}`);
  const wanted = entry.engines?.node;
  if (!wanted) continue;
  const bad = versions.filter((version) => !semver.satisfies(version, wanted));
  if (bad.length > 0) {
    refused += 1;
    console.error(`engines: ${name}@${entry.version} wants node ${wanted}: refuses ${bad.join(', ')}`);
  }
}
if (refused > 0) process.exitCode = 1;
console.log(
  `engines: every package in the lock accepts Node.js ${versions.join(', ')}` +
    (refused > 0 ? ` except ${refused}` : ''),
);
console.log(`install scripts in the lock: ${scripts.join(', ') || 'none'}`);

// Each install script was read before it was let in (docs/local-runtime.md, "What npm install runs"): a new one
// fails the check until someone has read it and added it here.
const reviewed = {
  '@scarf/scarf': 'install telemetry of swagger-ui-dist; off: package.json scarfSettings.enabled = false',
  esbuild:
    'links the binary of @esbuild/<platform>; fetches it from the npm registry only if that is missing',
};
for (const script of scripts) {
  const name = script.slice(0, script.lastIndexOf('@'));
  if (!(name in reviewed)) {
    console.error(
      `install scripts: ${script} runs a script on install that nobody has reviewed (.ci/check-lock.mjs)`,
    );
    process.exitCode = 1;
  }
}
