import { bundleGroup } from '/work/main/infra/bundling';
import { bundleFiles } from '/work/main/infra/bundle-graph';
const group = process.argv[2] as never;
const { metafile } = bundleGroup(group, `/tmp/an-${group}`);
if (!metafile) throw new Error('no metafile');
const files = bundleFiles(metafile);
const byPkg = new Map<string, number>();
let total = 0;
for (const out of files.cold) {
  const o = metafile.outputs[out]!;
  total += o.bytes;
  for (const [input, v] of Object.entries(o.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const key = m ? m[1] : input.split('/').slice(0, 2).join('/');
    byPkg.set(key!, (byPkg.get(key!) ?? 0) + v.bytesInOutput);
  }
}
console.log(group, 'cold', Math.round(total / 1024), files.cold.length, 'files');
for (const [k, v] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${k} ${Math.round(v / 1024)}`);
