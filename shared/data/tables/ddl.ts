import type { Queryable } from '../common/fragments';

/**
 * DDL without string-built SQL. PostgreSQL accepts no bind parameters in DDL, and CHECK constraints and defaults
 * need literal values; so a statement is a constant template with `%I` (identifier) and `%L` (literal)
 * placeholders, and every name and value is a bind parameter of `platform.execute_ddl`, which quotes them with the
 * server's own `format()` and executes the result. Templates come only from this code.
 */
export class Ddl {
  constructor(
    readonly template: string,
    readonly args: readonly string[],
  ) {}
}

class Placeholder {
  constructor(
    readonly marker: '%I' | '%L',
    readonly value: string,
  ) {}
}

export type DdlPart = Ddl | Placeholder | readonly Ddl[];

/** An identifier, quoted by the server (`%I`). */
export const ident = (name: string): Placeholder => new Placeholder('%I', name);

/** A literal value, quoted by the server (`%L`); cast it in the template when its type matters. */
export const literal = (value: string | number | boolean): Placeholder =>
  new Placeholder('%L', String(value));

const constants = /^[a-z][a-z0-9 ]*$/i;

/**
 * A piece of SQL text that is a constant of this code (a column type, an ON DELETE rule), never input; refuses
 * anything but letters, digits and spaces.
 */
export function keyword(text: string): Ddl {
  if (!constants.test(text)) throw new Error(`Not a SQL keyword: ${text}`);
  return new Ddl(text, []);
}

/** A DDL fragment or statement; arrays of fragments are joined with commas. */
export function ddl(strings: TemplateStringsArray, ...parts: DdlPart[]): Ddl {
  let template = '';
  const args: string[] = [];
  const append = (part: DdlPart) => {
    if (part instanceof Placeholder) {
      template += part.marker;
      args.push(part.value);
    } else if (part instanceof Ddl) {
      template += part.template;
      args.push(...part.args);
    } else {
      part.forEach((item, index) => {
        if (index > 0) template += ', ';
        append(item);
      });
    }
  };
  strings.forEach((text, index) => {
    template += text.replace(/%/g, '%%');
    const part = parts[index];
    if (part !== undefined) append(part);
  });
  return new Ddl(template, args);
}

/** Joins fragments with a separator (`ddl` joins arrays with commas). */
export function joinDdl(items: readonly Ddl[], separator: string): Ddl {
  const escaped = separator.replace(/%/g, '%%');
  return new Ddl(
    items.map((item) => item.template).join(escaped),
    items.flatMap((item) => item.args),
  );
}

/** Runs one DDL statement. */
export async function runDdl(sql: Queryable, statement: Ddl): Promise<void> {
  await sql`SELECT platform.execute_ddl(${statement.template}, ${statement.args as string[]})`;
}
