import type { RegExpEngine } from 'ajv/dist/types';
import type { RE2JS } from 're2js';
import { onFirstUse } from '../../lazy';

/**
 * Field patterns (`constraints.pattern`) run on two engines: RE2 (re2js, linear time) in the record validator and
 * PostgreSQL's ARE in the column's CHECK constraint. A pattern is accepted only when it is a regular expression on
 * its own, RE2 compiles it, and it uses no escape that the two engines read differently. docs/security.md.
 */

/**
 * RE2 (re2js, about 150 KiB) loads with the first table schema or record that has a pattern: a container whose
 * tables have none never loads it. Whoever checks or validates a pattern awaits `loadPatternEngine` first.
 */
let engine: typeof RE2JS | undefined;
const loadEngine = onFirstUse(async () => {
  engine = (await import('re2js')).RE2JS;
});

/** Loads RE2 if it is not loaded yet. */
export function loadPatternEngine(): Promise<void> {
  return engine ? Promise.resolve() : loadEngine();
}

/** Loads RE2 when one of these fields has a pattern (a table schema's or a record's). */
export async function loadPatternEngineFor(fields: readonly { constraints?: { pattern?: unknown } }[]) {
  if (fields.some((field) => field.constraints?.pattern !== undefined)) await loadPatternEngine();
}

function re2(): typeof RE2JS {
  if (!engine) throw new Error('RE2 is not loaded: await loadPatternEngine() before using a pattern');
  return engine;
}

/** Escapes both engines accept with different meanings: `\b` is a word boundary in RE2 but a backspace in PostgreSQL. */
const ambiguousEscapes: ReadonlySet<string> = new Set(['b', 'B']);

/** Frictionless patterns match the whole value (XML Schema semantics); JSON Schema's match anywhere. */
export function anchored(pattern: string): string {
  return `^(?:${pattern})$`;
}

function compileProblem(pattern: string): string | undefined {
  try {
    re2().compile(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : 'invalid';
  }
}

function ambiguousEscape(pattern: string): string | undefined {
  for (let index = 0; index < pattern.length; index++) {
    if (pattern[index] !== '\\') continue;
    const next = pattern[index + 1] ?? '';
    if (ambiguousEscapes.has(next)) return `\\${next}`;
    index++;
  }
  return undefined;
}

/** Why a field's pattern cannot be used (a sentence naming the field), or undefined when it can. */
export function patternProblem(field: string, pattern: string): string | undefined {
  if (pattern.includes('\u0000'))
    return `Field "${field}": the pattern contains the character U+0000, which PostgreSQL cannot take.`;
  // On its own first: `a)|(b` compiles once wrapped in `^(?:…)$`, and then no longer anchors the whole value.
  const problem = compileProblem(pattern) ?? compileProblem(anchored(pattern));
  if (problem)
    return `Field "${field}": the pattern is not a valid regular expression, or uses a construct the platform does not support (backreferences, lookahead, lookbehind): ${problem}.`;
  const ambiguous = ambiguousEscape(pattern);
  if (ambiguous)
    return `Field "${field}": the pattern uses ${ambiguous}, which PostgreSQL and the validator read differently; use a character class instead.`;
  return undefined;
}

/** A whole-value test of an (anchored) pattern on RE2, compiled on its first use; the engine must be loaded. */
export function patternTest(pattern: string): (text: string) => boolean {
  let compiled: RE2JS | undefined;
  return (text) => {
    compiled ??= re2().compile(pattern);
    return compiled.test(text);
  };
}

/** ajv's RegExp engine option (`code.regExp`): RE2, so that no pattern can take more than linear time. */
export const re2Engine: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = re2().compile(pattern);
    return { test: (text: string) => compiled.test(text), toString: () => `re2:${pattern}` };
  },
  { code: 're2js' },
);
