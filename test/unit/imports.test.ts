import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of the project's code keeps its layers: a module imports modules of its own layer or of lower
 * ones, never of a higher one, and no module imports, directly or through others, a module that imports it.
 * Static `import … from` and `export … from` count, `import type` included: a type names the module it comes from
 * as much as a value does. `import()` does not (it runs after the importer has loaded: adapters chosen at run time).
 */

const roots = ['shared', 'functions', 'bin', 'infra', 'client', 'console'];

/**
 * The layers, lowest first (docs/architecture.md, "Layout"). A file belongs to the layer of the longest path that
 * names it; every file of the roots must belong to one.
 */
const layers: readonly (readonly [name: string, paths: readonly string[]])[] = [
  [
    'core',
    [
      'shared/errors.ts',
      'shared/field-errors.ts',
      'shared/config.ts',
      'shared/cors.ts',
      'shared/clock.ts',
      'shared/log.ts',
      'shared/slug.ts',
      'shared/lazy.ts',
      'shared/bounded.ts',
      'shared/keys/',
    ],
  ],
  ['HTTP toolkit', ['shared/api/']],
  ['stores', ['shared/store/', 'shared/sql/', 'shared/mail/']],
  ['domains: accounts, limits', ['shared/accounts/', 'shared/limits/']],
  // The data domain's concerns, in their own order; its route declarations (shared/data/*.ts) sit with the domains.
  ['data: common', ['shared/data/common/']],
  ['data: schema', ['shared/data/schema/']],
  ['data: tables', ['shared/data/tables/']],
  ['data: query', ['shared/data/query/']],
  ['data: records', ['shared/data/records/']],
  ['data: graph', ['shared/data/graph/']],
  [
    'domains: auth, groups, roles, data, policy',
    ['shared/auth/', 'shared/mfa/', 'shared/groups/', 'shared/roles/', 'shared/data/', 'shared/policy/'],
  ],
  [
    'domains: tenancy, api keys, social, secrets',
    ['shared/tenancy/', 'shared/api-keys/', 'shared/social/', 'shared/secrets/'],
  ],
  [
    'domains: events, invitations, recovery, meta, pages',
    [
      'shared/events/',
      'shared/webhooks/',
      'shared/invitations/',
      'shared/recovery/',
      'shared/meta/',
      'shared/pages/',
    ],
  ],
  ['domains: lifecycle (deletions, across the domains above)', ['shared/lifecycle/']],
  ['ports', ['shared/deps.ts']],
  ['pipeline', ['shared/http/']],
  ['adapters', ['shared/adapters/']],
  ['composition', ['shared/compose/']],
  ['hosts', ['shared/host/']],
  ['functions', ['functions/']],
  ['every group, for the local server', ['functions/registry.ts']],
  ['tools', ['bin/', 'infra/', 'console/build.ts']],
];

/**
 * The surfaces' own layers (docs/client.md, docs/console.md), lowest first. They stand apart from the backend's:
 * the client and the console import nothing of shared/, functions/, bin/ or infra/ (a test below holds it), and
 * the console reaches the API through the client alone.
 */
const surfaceLayers: readonly (readonly [name: string, paths: readonly string[]])[] = [
  ['client: core (generated types, errors, transport)', ['client/src/generated/', 'client/src/core/']],
  ['client: resources (tables, records, filters, operators)', ['client/src/resources/']],
  ['client: refine providers', ['client/src/refine/']],
  ['client: entries', ['client/src/client.ts', 'client/src/index.ts', 'client/src/refine.ts']],
  // Every layer of the console names a place: the place (the address) imports nothing.
  ['console: the place', ['console/src/place.ts']],
  ['console: typed queries, one module per resource', ['console/src/queries/']],
  ['console: kit of form parts', ['console/src/kit/']],
  ['console: screens', ['console/src/screens/']],
  ['console: app (sections, navigation, routing, shell)', ['console/src/app/']],
  ['console: entry', ['console/src/main.tsx']],
];

// The surfaces stand above the backend's hosts and below the tools (bin/ uses the client: `npm run client -- types`).
const allLayers = [...layers.slice(0, -1), ...surfaceLayers, ...layers.slice(-1)];

function sources(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(path) && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const staticImport = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The project modules a module imports at load time or names the types of. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(staticImport)].flatMap((match) => {
    // `./errors.js` names `./errors.ts` (the client's imports, as Node's ES modules want them).
    const target = resolve(dirname(file), (match[1] as string).replace(/\.js$/, ''));
    const candidates = [target, `${target}.ts`, `${target}.tsx`, join(target, 'index.ts')];
    const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
    return found && /\.tsx?$/.test(found) ? [relative('.', found)] : [];
  });
}

/** The index of the layer of a file, or undefined when no layer names it. */
function layerOf(file: string, order: typeof layers = allLayers): number | undefined {
  let best: { index: number; length: number } | undefined;
  order.forEach(([, paths], index) => {
    for (const path of paths)
      if (
        (file === path || (path.endsWith('/') && file.startsWith(path))) &&
        path.length > (best?.length ?? -1)
      )
        best = { index, length: path.length };
  });
  return best?.index;
}

/** The imports that run from a lower layer to a higher one, each as `importer -> imported (layer -> layer)`. */
function upwardImports(
  graph: ReadonlyMap<string, readonly string[]>,
  order: typeof layers = allLayers,
): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = layerOf(file, order);
    for (const target of imports) {
      const to = layerOf(target, order);
      if (from !== undefined && to !== undefined && to > from)
        found.push(`${file} -> ${target} (${order[from]?.[0]} -> ${order[to]?.[0]})`);
    }
  }
  return found.sort();
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

function projectGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap(sources)) graph.set(file, importsOf(file, readFileSync(file, 'utf8')));
  return graph;
}

describe('the import graph', () => {
  it('reads static imports, re-exports and type imports, not dynamic ones', () => {
    const text = [
      "import { Router } from './router';",
      "import type { GroupDef } from '../api/route';",
      "export { errorBody } from './envelopes';",
      'import type {',
      '  RequestContext,',
      "} from './context';",
      "const later = await import('./openapi');",
      "import './handler';",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(importsOf('shared/http/example.ts', text)).toEqual([
      'shared/http/router.ts',
      'shared/api/route.ts',
      'shared/http/envelopes.ts',
      'shared/http/context.ts',
      'shared/http/handler.ts',
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

  it('finds an import that runs up the layers', () => {
    const order = [
      ['low', ['shared/low/']],
      ['high', ['shared/high/', 'shared/top.ts']],
    ] as const;
    const down = new Map([
      ['shared/high/a.ts', ['shared/low/b.ts', 'shared/high/c.ts']],
      ['shared/top.ts', ['shared/high/a.ts']],
      ['shared/low/b.ts', ['shared/low/d.ts']],
    ]);
    expect(upwardImports(down, order)).toEqual([]);
    // A domain that reaches for the pipeline, say: one type import is enough.
    const up = new Map([...down, ['shared/low/d.ts', ['shared/top.ts']]]);
    expect(upwardImports(up, order)).toEqual(['shared/low/d.ts -> shared/top.ts (low -> high)']);
  });

  it(`places every module of ${roots.join(', ')} in a layer`, () => {
    const graph = projectGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.keys()].filter((file) => layerOf(file) === undefined)).toEqual([]);
  });

  it('keeps the surfaces apart: the client and the console import no code of the backend', () => {
    const backend = ['shared/', 'functions/', 'bin/', 'infra/'];
    const crossing = [...projectGraph()].flatMap(([file, imports]) =>
      /^(client|console)\/src\//.test(file)
        ? imports
            .filter((target) => backend.some((root) => target.startsWith(root)))
            .map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(crossing).toEqual([]);
  });

  it('has no import from a lower layer to a higher one', () => {
    expect(upwardImports(projectGraph())).toEqual([]);
  });

  it(`has no cycle among the modules of ${roots.join(', ')}`, () => {
    expect(cyclesOf(projectGraph()).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
