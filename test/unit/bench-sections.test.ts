import { describe, expect, it } from 'vitest';
import { keepSections, sectionOf, withSection } from '../../bin/doc-sections';

describe('docs/benchmarks.md regions', () => {
  it('are written by npm run size in place, and appended when absent', () => {
    const first = withSection('# Benchmarks\n\nintro\n', 'bundles', '## Bundles\n\n| a |');
    expect(first).toBe(
      '# Benchmarks\n\nintro\n\n<!-- bundles:start -->\n## Bundles\n\n| a |\n<!-- bundles:end -->\n',
    );
    const second = withSection(first, 'bundles', '## Bundles\n\n| b $& |');
    expect(second).toContain('| b $& |');
    expect(second).not.toContain('| a |');
    expect(second.startsWith('# Benchmarks\n\nintro\n')).toBe(true);
  });

  it('survive a new report of npm run bench, which drops everything else', () => {
    const previous = withSection('# Benchmarks\n\nold run\n', 'bundles', '## Bundles\n\nsizes');
    const next = keepSections('# Benchmarks\n\nnew run\n', previous);
    expect(next).not.toContain('old run');
    expect(next).toContain('new run');
    expect(sectionOf(next, 'bundles')).toBe(sectionOf(previous, 'bundles'));
    expect(keepSections('# Benchmarks\n', undefined)).toBe('# Benchmarks\n');
  });
});
