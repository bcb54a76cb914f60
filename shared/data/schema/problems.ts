import type { FieldErrors } from '../../errors';
import { newFieldErrors } from '../../field-errors';

/** The problems found in a table schema, by path in the schema (`fields.2.type`); each message once. */
export class Problems {
  readonly errors: FieldErrors = newFieldErrors();
  add(path: string, message: string): void {
    const messages = this.errors[path] ?? [];
    if (!messages.includes(message)) messages.push(message);
    this.errors[path] = messages;
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
}
