import { type AnyRecord, type FieldDef, jsonTypes } from '../../queries/table-types';

/** Reading an import file: CSV (with a header row) or JSON, its cells converted to the fields' types. */

/** The largest file read (the browser holds it whole). */
export const maxFileBytes = 20 * 1024 * 1024;

/** CSV (RFC 4180: quoted cells, doubled quotes, line breaks inside quotes) as rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (quoted) {
      if (char === '"') {
        if (source[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((cells) => !(cells.length === 1 && cells[0] === ''));
}

/** A CSV cell as the field's type wants it; what does not convert is sent as text, for the API to refuse. */
function cellValue(field: FieldDef | undefined, text: string): unknown {
  if (!field) return text;
  switch (field.type) {
    case 'integer':
    case 'number': {
      const number = Number(text);
      return text.trim() !== '' && Number.isFinite(number) ? number : text;
    }
    case 'boolean':
      return ['true', '1'].includes(text.toLowerCase())
        ? true
        : ['false', '0'].includes(text.toLowerCase())
          ? false
          : text;
    default:
      if (jsonTypes.has(field.type))
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      return text;
  }
}

/** The records of a file: a JSON array of objects (or `{data: [...]}`), or a CSV file with a header row. */
export function recordsOfFile(name: string, text: string, fields: FieldDef[]): AnyRecord[] {
  const trimmed = text.trimStart();
  if (/\.json$/i.test(name) || trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${name} is not valid JSON.`);
    }
    const items =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as { data?: unknown }).data
        : parsed;
    if (
      !Array.isArray(items) ||
      items.some((item) => !item || typeof item !== 'object' || Array.isArray(item))
    )
      throw new Error(`${name} must hold an array of records (JSON objects).`);
    return items as AnyRecord[];
  }
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error(`${name} is empty.`);
  const byName = new Map(fields.map((field) => [field.name, field]));
  const columns = header.map((column) => column.trim());
  return rows.map((cells) => {
    const record: AnyRecord = {};
    columns.forEach((column, index) => {
      const cell = cells[index] ?? '';
      if (column && cell !== '') record[column] = cellValue(byName.get(column), cell);
    });
    return record;
  });
}
