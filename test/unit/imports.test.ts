import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of the project's code has no cycle: a module never imports, directly or through others, a
 * module that imports it. Static `import … from` and `export … from` count; `import type` does not (TypeScript
 * erases it), nor does `import()` (it runs after the importer has loaded).
 */

const roots = ['shared', 'functions', 'bin', 'infra'];

function sources(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const staticImport = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The project modules a module imports at load time. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(staticImport)].flatMap((match) => {
    const target = resolve(dirname(file), match[1] as string);
    const candidates = [target, `${target}.ts`, join(target, 'index.ts')];
    const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
    return found?.endsWith('.ts') ? [relative('.', found)] : [];
  });
}

/** The cycles of a graph, each as the path that closes it (first module repeated at the end). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('the import graph', () => {
  it('reads static imports and re-exports, not type-only or dynamic ones', () => {
    const text = [
      "import { Router } from './router';",
      "import type { RouteDef } from './route';",
      "export { groups } from './groups';",
      "import { type HttpResult, something } from './context';",
      "const later = await import('./openapi');",
      "import './cors';",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(importsOf('shared/http/example.ts', text)).toEqual([
      'shared/http/router.ts',
      'shared/http/groups.ts',
      'shared/http/context.ts',
      'shared/http/cors.ts',
    ]);
  });

  it('finds a cycle, however long', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it(`has no cycle among the modules of ${roots.join(', ')}`, () => {
    const graph = new Map<string, string[]>();
    for (const file of roots.flatMap(sources)) graph.set(file, importsOf(file, readFileSync(file, 'utf8')));
    expect(graph.size).toBeGreaterThan(100);
    expect(cyclesOf(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
