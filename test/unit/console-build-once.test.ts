import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsoleOnce } from '../../console/build';

/**
 * `npm start` builds the console at its first start (bin/local.ts): aside, then renamed into place. A build that
 * fails leaves nothing behind (it did: an empty `dist.<pid>` per failed start), and a build that loses the race to
 * another start's removes its own copy.
 */

const root = mkdtempSync(join(tmpdir(), 'console-once-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A stand-in build that writes the files it names, then fails when asked to. */
const build = (fail: boolean) => (outdir: string) => {
  mkdirSync(outdir, { recursive: true });
  writeFileSync(join(outdir, 'manifest.json'), '{}');
  if (fail) throw new Error('esbuild failed');
};

describe('buildConsoleOnce', () => {
  it('puts the build in place under the console directory', () => {
    const dist = join(root, 'ok', 'dist');
    mkdirSync(join(root, 'ok'));
    buildConsoleOnce(dist, build(false));
    expect(readdirSync(join(root, 'ok'))).toEqual(['dist']);
    expect(existsSync(join(dist, 'manifest.json'))).toBe(true);
  });

  it('leaves nothing behind when the build fails, and says why', () => {
    mkdirSync(join(root, 'failing'));
    expect(() => buildConsoleOnce(join(root, 'failing', 'dist'), build(true))).toThrow('esbuild failed');
    expect(readdirSync(join(root, 'failing'))).toEqual([]);
  });

  it('keeps the build another start put in place first, and removes its own', () => {
    const dist = join(root, 'raced', 'dist');
    mkdirSync(join(dist), { recursive: true });
    writeFileSync(join(dist, 'manifest.json'), '{"first":true}');
    writeFileSync(join(dist, 'console-A.js'), '');
    buildConsoleOnce(dist, build(false));
    expect(readdirSync(join(root, 'raced'))).toEqual(['dist']);
    expect(readdirSync(dist).sort()).toEqual(['console-A.js', 'manifest.json']);
  });
});
