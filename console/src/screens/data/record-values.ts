import { type FieldDef, jsonTypes } from '../../queries/tables';

/** A field's value as a form shows it, and back: what the record form and the grid's cell editor share. */
export function toText(field: FieldDef, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (jsonTypes.has(field.type)) return JSON.stringify(value, null, 2);
  return String(value);
}

export function fromText(field: FieldDef, text: string): { value?: unknown; error?: string } {
  if (text === '') return { value: null };
  switch (field.type) {
    case 'integer':
    case 'number': {
      const number = Number(text);
      return Number.isFinite(number) ? { value: number } : { error: 'Enter a number.' };
    }
    case 'boolean':
      return { value: text === 'true' };
    case 'object':
    case 'array':
    case 'json':
    case 'any':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: 'Enter valid JSON.' };
      }
    default:
      return { value: text };
  }
}
