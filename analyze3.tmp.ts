import { bundleGroup } from '/work/main/infra/bundling';
import { bundleFiles } from '/work/main/infra/bundle-graph';
const group = process.argv[2] as never;
const filter = process.argv[3] ?? '';
const { metafile } = bundleGroup(group, `/tmp/an-${group}`);
const files = bundleFiles(metafile!);
const rows: [string, number][] = [];
for (const out of files.cold) for (const [input, v] of Object.entries(metafile!.outputs[out]!.inputs)) if (input.includes(filter)) rows.push([input, v.bytesInOutput]);
for (const [k, v] of rows.sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${(v/1024).toFixed(1)} ${k}`);
