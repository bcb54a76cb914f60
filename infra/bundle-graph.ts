import { rmSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Metafile } from 'esbuild';

/** The code files of a bundle by when they load: with `index.mjs` at cold start, or later by `import()`. */
export interface BundleFiles {
  /** The entry and the chunks it imports statically: what a cold start loads. */
  readonly cold: readonly string[];
  /** Chunks reached only through `import()`: loaded on the first request that needs them. */
  readonly lazy: readonly string[];
  /** Chunks nothing reaches (esbuild splits out every `import()` it sees, even in code it then drops). */
  readonly unreachable: readonly string[];
}

/** Sorts a bundle's output files (paths as esbuild's metafile writes them) from its entry `index.mjs`. */
export function bundleFiles(metafile: Metafile): BundleFiles {
  const outputs = metafile.outputs;
  const code = Object.keys(outputs).filter((file) => file.endsWith('.mjs'));
  // The handler's `index.mjs`: chunks split out of `import()` have entry points too, listed in no fixed order.
  const entry = code.find(
    (file) => basename(file) === 'index.mjs' && outputs[file]?.entryPoint !== undefined,
  );
  if (!entry) throw new Error('The bundle has no entry point');
  const cold = walk(outputs, [entry], false);
  const all = walk(outputs, [entry], true);
  return {
    cold: [...cold],
    lazy: [...all].filter((file) => !cold.has(file)),
    unreachable: code.filter((file) => !all.has(file)),
  };
}

function walk(outputs: Metafile['outputs'], start: string[], dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const queue = [...start];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? []) {
      if (imported.external || !imported.path.endsWith('.mjs')) continue;
      if (imported.kind === 'import-statement' || (dynamic && imported.kind === 'dynamic-import'))
        queue.push(imported.path);
    }
  }
  return seen;
}

/** Deletes the chunks nothing loads (and their source maps), so a package holds only code that can run. */
export function pruneUnreachable(metafile: Metafile, workingDir: string): void {
  for (const file of bundleFiles(metafile).unreachable) {
    rmSync(resolve(workingDir, file), { force: true });
    rmSync(resolve(workingDir, `${file}.map`), { force: true });
  }
}
