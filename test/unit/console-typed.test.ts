import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every call of the console goes through the typed client (docs/console.md, "Typed end to end"): a path template
 * of the API's OpenAPI document and its parameters (`clientFor(site).GET('/api/…/{slug}/', { params })`), or a
 * call of the client's tables; its answer is typed by the document, never cast. What is refused, line by line: a
 * call by a path string (`.request(`), an untyped helper that names the answer's type (`get<T>(`, `send<T>(`),
 * and a cast of an answer (`as` after an `await`, an `answerOf(…)` or a `.data`).
 */
const refusals: readonly [what: string, pattern: RegExp][] = [
  ['a call by a path string', /\.request\s*[<(]/],
  ['an untyped helper naming its answer type', /(?<![.\w])(get|send)\s*<[^>]*>\s*\(/],
  ['a cast of an answer', /(\bawait\b|\banswerOf\(|\.data\b)[^;]*?\)?\s+as\s+(?!const\b)[\w{[(]/],
];

function sources(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** The refused lines of a text, each as `file:line: what`. */
function refused(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      refusals.filter(([, pattern]) => pattern.test(line)).map(([what]) => `${file}:${index + 1}: ${what}`),
    );
}

describe('the console: typed end to end', () => {
  it('refuses each kind of untyped call and cast of an answer', () => {
    expect(refused('a.ts', "  return (await clientFor(site).request('GET', path, { query })) as T;")).toEqual(
      ['a.ts:1: a call by a path string', 'a.ts:1: a cast of an answer'],
    );
    expect(refused('a.ts', "queryFn: () => get<{ data: Role[] }>('/api/roles/', site),")).toEqual([
      'a.ts:1: an untyped helper naming its answer type',
    ]);
    expect(refused('a.ts', '  const records = (query.data?.data ?? []) as AnyRecord[];')).toEqual([
      'a.ts:1: a cast of an answer',
    ]);
    expect(refused('a.ts', "const roles = answerOf(clientFor(site).GET('/api/roles/')) as Role[];")).toEqual([
      'a.ts:1: a cast of an answer',
    ]);
    // Typed calls, a map's get, a cast of what a person typed: none is refused.
    expect(
      refused(
        'a.ts',
        [
          "  const roles = await answerOf(clientFor(site).GET('/api/roles/', { params: { query: { page_size: 100 } } }));",
          '  const label = labels.get(String(other));',
          "  const types = ['a'] as const;",
          '  value: parsed as Record<string, never>,',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('has no untyped call and no cast of an answer in console/src', () => {
    const files = sources('console/src');
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap((file) => refused(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('makes its calls through the typed client', () => {
    const typed = sources('console/src')
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n')
      .match(/\.(GET|POST|PUT|PATCH|DELETE)\('\/api\//g);
    expect(typed?.length ?? 0).toBeGreaterThan(60);
  });
});
