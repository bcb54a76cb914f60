import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { groups, routesOf } from '../functions/groups';
import { bundleFiles } from '../infra/bundle-graph';
import { bundleGroup } from '../infra/bundling';
import { withSection } from './doc-sections';

/**
 * `npm run size`: builds each group's Lambda bundle (dist/<group>/), prints what its cold start loads, what it loads
 * later, and the median time of a cold `import()` of it in a fresh Node.js process; writes the table into the
 * "bundles" region of docs/benchmarks.md; fails when a bundle is over budget. SIZE_RUNS sets the imports per
 * bundle (default 7).
 */

const budgetKiB = 400;
const budgetMs = 150;
const runs = Number(process.env.SIZE_RUNS ?? 7);
const kib = (bytes: number) => bytes / 1024;

interface BundleSize {
  group: string;
  coldKiB: number;
  lazyKiB: number;
  importMs: number;
}

/** One cold `import()` of a bundle in a fresh process, in ms, as the Lambda runtime loads it. */
function coldImportMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  if (child.status !== 0) throw new Error(`Importing ${file} failed: ${child.stderr}`);
  return Number(child.stdout);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function measureGroup(group: string): BundleSize {
  const outdir = `dist/${group}`;
  rmSync(outdir, { recursive: true, force: true });
  const { metafile } = bundleGroup(group, outdir);
  if (!metafile) throw new Error('esbuild wrote no metafile');
  const files = bundleFiles(metafile);
  const bytes = (list: readonly string[]) => list.reduce((sum, file) => sum + statSync(file).size, 0);
  const entry = resolve(outdir, 'index.mjs');
  const times = Array.from({ length: runs }, () => coldImportMs(entry));
  return { group, coldKiB: kib(bytes(files.cold)), lazyKiB: kib(bytes(files.lazy)), importMs: median(times) };
}

const within = (size: BundleSize) => size.coldKiB <= budgetKiB && size.importMs <= budgetMs;

function table(sizes: readonly BundleSize[]): string[] {
  return [
    '| group | loaded at cold start (KiB) | loaded on first use (KiB) | cold `import()` (ms, median) | within budget |',
    '|---|---|---|---|---|',
    ...sizes.map(
      (size) =>
        `| ${size.group} | ${size.coldKiB.toFixed(0)} | ${size.lazyKiB.toFixed(0)} | ${size.importMs.toFixed(0)} | ${within(size) ? 'yes' : '**no**'} |`,
    ),
  ];
}

function section(sizes: readonly BundleSize[]): string {
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
  return [
    '## Bundles',
    '',
    '<!-- Written by `npm run size` (bin/size.ts); `npm run bench` keeps this region. -->',
    '',
    `Budget per group: at most ${budgetKiB} KiB of minified code loaded at cold start, and a cold \`import()\` of the`,
    `bundle in at most ${budgetMs} ms on an idle machine. "Loaded at cold start" is \`index.mjs\` with the chunks it`,
    'imports; "loaded on first use" are the chunks only an `import()` reaches (the password dictionaries, the',
    "meta group's route table, …). Source maps and the explorer's files are not counted.",
    '',
    `Last run: ${new Date().toISOString().slice(0, 10)}, Node.js ${process.version}, ${cpus().length} cores, load average ${load}, ${runs} imports per bundle.`,
    '',
    ...table(sizes),
  ].join('\n');
}

const sizes = Object.values(groups)
  .filter((group) => routesOf(group.name).length > 0)
  .map((group) => measureGroup(group.name));
process.stdout.write(`${table(sizes).join('\n')}\n`);
const report = 'docs/benchmarks.md';
const current = existsSync(report) ? readFileSync(report, 'utf8') : '# Benchmarks\n';
writeFileSync(report, withSection(current, 'bundles', section(sizes)));
const over = sizes.filter((size) => !within(size));
if (over.length > 0) {
  process.stderr.write(`Over budget: ${over.map((size) => size.group).join(', ')}\n`);
  process.exitCode = 1;
}
