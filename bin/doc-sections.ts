/**
 * Marked regions of docs/benchmarks.md that another script writes: `npm run bench` rewrites the file but keeps
 * them as they were: `npm run size` replaces its own ("bundles"), `npm run bench:cold` its own ("cold": each group's
 * bundle started in a fresh process), `npm run bench:peer` its own ("peer": the project
 * against Directus); "analysis" is written by hand (what the figures mean, and the profiles behind the targets not met).
 */

function markers(name: string): { start: string; end: string } {
  return { start: `<!-- ${name}:start -->`, end: `<!-- ${name}:end -->` };
}

/** The region `name` of a Markdown text with its markers, or undefined when it has none. */
export function sectionOf(markdown: string, name: string): string | undefined {
  const { start, end } = markers(name);
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end, from);
  if (from < 0 || to < 0) return undefined;
  return markdown.slice(from, to + end.length);
}

/** The text with region `name` replaced by `body` between its markers (appended at the end when absent). */
export function withSection(markdown: string, name: string, body: string): string {
  const { start, end } = markers(name);
  const region = `${start}\n${body.trim()}\n${end}`;
  const current = sectionOf(markdown, name);
  if (current !== undefined) return markdown.replace(current, () => region);
  return `${markdown.trimEnd()}\n\n${region}\n`;
}

/** The regions of the previous report that `npm run bench` keeps, appended to its new report. */
export const keptSections = ['analysis', 'bundles', 'peer', 'cold', 'soak'] as const;

/** A new report with the kept regions of the previous one. */
export function keepSections(next: string, previous: string | undefined): string {
  let markdown = next;
  for (const name of keptSections) {
    const region = previous === undefined ? undefined : sectionOf(previous, name);
    if (region !== undefined) markdown = `${markdown.trimEnd()}\n\n${region}\n`;
  }
  return markdown;
}
