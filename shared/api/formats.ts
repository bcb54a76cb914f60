import { fullFormats } from 'ajv-formats/dist/formats';

/** A check of a string format. */
export type FormatTest = (text: string) => boolean;

type FormatDefinition = RegExp | FormatTest | { validate: RegExp | FormatTest };

/**
 * ajv-formats' own check of a format (full mode): a regular expression, a function, or a definition with
 * `validate`. The syntax of each format stays theirs, so record checks and route validators agree.
 */
export function ajvFormat(name: keyof typeof fullFormats): FormatTest {
  const definition = fullFormats[name] as unknown as FormatDefinition;
  const check = typeof definition === 'object' && 'validate' in definition ? definition.validate : definition;
  return check instanceof RegExp ? (text) => check.test(text) : check;
}
