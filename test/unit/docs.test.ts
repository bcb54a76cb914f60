import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const pages = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchors(file: string): Set<string> {
  const headings = [...readFileSync(file, 'utf8').matchAll(/^#{1,6}\s+(.+)$/gm)].map(
    (match) => match[1] as string,
  );
  return new Set(
    headings.map((heading) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .trim()
        .replace(/\s/g, '-'),
    ),
  );
}

describe('README and docs/', () => {
  // docs/benchmarks.md is written by the bench, with figures after its labels.
  it.each(pages.filter((page) => page !== 'docs/benchmarks.md'))(
    '%s has no paragraph that stops mid-sentence (cut by another)',
    (page) => {
      const prose = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const paragraph of prose.split(/\n\s*\n/).map((text) => text.trim())) {
        // Headings, tables, lists, quotes, images and HTML are not sentences.
        if (paragraph === '' || /^([#|!<>*-]|\d+\.)/.test(paragraph)) continue;
        expect(paragraph.slice(-80), page).toMatch(/[.:)!?]$/);
      }
    },
  );

  it.each(pages)('%s cites nothing outside the repository', (page) => {
    const text = readFileSync(page, 'utf8');
    expect(text).not.toMatch(/\.\.\/shared|shared\/spec|ARCHITECTURE\.md|STYLE\.md/);
    for (const match of text.matchAll(/`(\.\.\/[^`]+)`/g)) {
      const target = normalize(join(dirname(page), match[1] as string));
      expect(relative('.', target).startsWith('..'), `${page} cites ${match[1]}`).toBe(false);
    }
  });

  it.each(pages)('%s links only to files and headings that exist', (page) => {
    const text = readFileSync(page, 'utf8');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = match[1] as string;
      if (/^[a-z]+:/.test(link)) continue;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? page : normalize(join(dirname(page), path));
      expect(relative('.', target).startsWith('..'), `${page} links outside: ${link}`).toBe(false);
      expect(existsSync(target), `${page} links to missing ${link}`).toBe(true);
      if (anchor && target.endsWith('.md'))
        expect(anchors(target).has(anchor), `${page} links to missing heading ${link}`).toBe(true);
    }
  });
});
