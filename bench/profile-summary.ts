import { readFileSync } from 'node:fs';

/**
 * `tsx bench/profile-summary.ts <file.cpuprofile>`: where a CPU profile's time went, by package and by function
 * (self time). Used with BENCH_PROFILE=1 to explain a ratio in docs/benchmarks.md.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const file = process.argv[2];
if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile>');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
const hits = new Map<number, number>();
for (const sample of profile.samples) hits.set(sample, (hits.get(sample) ?? 0) + 1);
const total = profile.samples.length;

function packageOf(url: string): string {
  const match = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (match?.[1]) return match[1];
  if (url.startsWith('node:') || url === '') return url || '(native/idle/gc)';
  const local = /\/work\/[^/]+\/(.*)$/.exec(url)?.[1] ?? url;
  return local.split('/').slice(0, 2).join('/');
}

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of profile.nodes) {
  const count = hits.get(node.id) ?? 0;
  if (count === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + count);
  const name = `${functionName || '(anonymous)'} ${packageOf(url)}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + count);
}
const top = (map: Map<string, number>, n: number) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, count]) => `${((100 * count) / total).toFixed(1).padStart(5)}%  ${name}`)
    .join('\n');
process.stdout.write(
  `samples: ${total}\n\nby package:\n${top(byPackage, 25)}\n\nby function:\n${top(byFunction, 40)}\n`,
);
