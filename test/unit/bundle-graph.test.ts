import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleFiles } from '../../infra/bundle-graph';

/** Sorting a bundle's outputs from its entry: the entry is `index.mjs`, whatever order esbuild lists outputs in. */

const output = (entryPoint: string | undefined, imports: Metafile['outputs'][string]['imports']) => ({
  bytes: 1,
  inputs: {},
  exports: [],
  imports,
  ...(entryPoint ? { entryPoint } : {}),
});

describe('bundleFiles', () => {
  it('starts from index.mjs even when a dynamic-import chunk with an entry point is listed first', () => {
    const metafile = {
      inputs: {},
      outputs: {
        'out/chunks/openapi-A.mjs': output('shared/http/openapi.ts', [
          { path: 'out/chunks/chunk-B.mjs', kind: 'import-statement' },
        ]),
        'out/index.mjs': output('functions/meta/handler.ts', [
          { path: 'out/chunks/chunk-B.mjs', kind: 'import-statement' },
          { path: 'out/chunks/openapi-A.mjs', kind: 'dynamic-import' },
        ]),
        'out/chunks/chunk-B.mjs': output(undefined, []),
        'out/chunks/orphan-C.mjs': output('shared/unused.ts', []),
      },
    } as Metafile;
    expect(bundleFiles(metafile)).toEqual({
      cold: expect.arrayContaining(['out/index.mjs', 'out/chunks/chunk-B.mjs']),
      lazy: ['out/chunks/openapi-A.mjs'],
      unreachable: ['out/chunks/orphan-C.mjs'],
    });
  });
});
