import { ajvFormat } from './formats';

/**
 * Dates and datetimes without `Date` pitfalls. `new Date('0001-01-01 00:00:00+00')` reads a two-digit year
 * (2001), and JSON has no dates anyway: PostgreSQL's text is read with regular expressions and written back as
 * RFC 3339. The API represents the years 0001 to 9999 (UTC) with at most microseconds; anything else is refused
 * on input. docs/security.md, "Dates and times".
 */

const formats = { date: ajvFormat('date'), 'date-time': ajvFormat('date-time') };

/** Components of an RFC 3339 date-time (what the `date-time` format accepts). */
const rfc3339 =
  /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:[Zz]|([+-])(\d\d)(?::?(\d\d))?)$/;

/** PostgreSQL's ISO text of a timestamptz (or timestamp): any year width, an offset, maybe ` BC`. */
const pgTimestamp =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?( BC)?$/;

/** Milliseconds since the epoch of a UTC wall time, years below 100 included (Date.UTC maps them to 19xx). */
function utcMillis(year: number, month: number, day: number, h: number, m: number, s: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(h, m, s, 0);
  return date.getTime();
}

const firstInstant = utcMillis(1, 1, 1, 0, 0, 0);
const pastLastInstant = utcMillis(10000, 1, 1, 0, 0, 0);

/** Microseconds at most: PostgreSQL would round more digits, possibly into another second or year. */
const maxFractionDigits = 6;

function offsetMillis(sign: string | undefined, hours = '0', minutes = '0', seconds = '0'): number {
  if (!sign) return 0;
  const size = ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
  return sign === '-' ? -size : size;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** `YYYY-MM-DDTHH:MM:SS.mmmZ`, or microseconds when the value has them. */
function formatInstant(millis: number, fraction: string): string {
  const date = new Date(millis);
  const micros = fraction.padEnd(6, '0');
  const shown = micros.endsWith('000') ? micros.slice(0, 3) : micros;
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${shown}Z`;
}

/** Whether an RFC 3339 date-time is one the API takes: syntax and calendar, years 0001-9999 in UTC, microseconds. */
export function isApiDateTime(text: string): boolean {
  const parts = rfc3339.exec(text);
  if (!parts || !formats['date-time'](text)) return false;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh, om] = parts;
  if (fraction.length > maxFractionDigits) return false;
  const instant =
    utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)) -
    offsetMillis(sign, oh, om);
  return instant >= firstInstant && instant < pastLastInstant;
}

/** Whether a full date is one the API takes: valid in the calendar, years 0001-9999. */
export function isApiDate(text: string): boolean {
  return formats.date(text) && !text.startsWith('0000');
}

/** An RFC 3339 date-time in the API's UTC form (for comparing values); undefined when it is not one. */
export function canonicalDateTime(text: string): string | undefined {
  if (!isApiDateTime(text)) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh, om] = rfc3339.exec(text) as RegExpExecArray;
  const instant =
    utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)) -
    offsetMillis(sign, oh, om);
  return formatInstant(instant, fraction);
}

const isDigit = (text: string, at: number) => {
  const code = text.charCodeAt(at);
  return code >= 48 && code <= 57;
};

/**
 * The text of a UTC value with a four-digit year, `YYYY-MM-DD HH:MM:SS[.1-6 digits][+00]` (or of a timestamp without
 * time zone; years 0001-9999), read by position, without a match array and its captures: a read of a
 * thousand records reads a thousand timestamps (docs/benchmarks.md, Memory). Undefined for any other text.
 */
function utcTimestampFromPg(text: string): string | undefined {
  let end = text.length;
  if (end >= 22 && text.endsWith('+00')) end -= 3;
  if (end < 19 || end === 20 || end > 26) return undefined;
  for (let at = 0; at < 19; at++) {
    const separator = at === 4 || at === 7 ? '-' : at === 10 ? ' ' : at === 13 || at === 16 ? ':' : undefined;
    if (separator === undefined ? !isDigit(text, at) : text[at] !== separator) return undefined;
  }
  if (text.startsWith('0000')) return undefined;
  if (end === 19) return `${text.slice(0, 10)}T${text.slice(11, 19)}.000Z`;
  if (text[19] !== '.') return undefined;
  for (let at = 20; at < end; at++) if (!isDigit(text, at)) return undefined;
  // Microseconds are shown when any is not zero, else milliseconds (as the general path: `micros` below).
  let micros = false;
  for (let at = 23; at < end; at++) if (text[at] !== '0') micros = true;
  const fraction = micros
    ? text.slice(20, end).padEnd(6, '0')
    : text.slice(20, Math.min(end, 23)).padEnd(3, '0');
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`;
}

/**
 * A timestamptz as PostgreSQL writes it (ISO DateStyle, any zone) in the API's form. Values the API cannot
 * represent (BC, beyond 9999, infinity) keep PostgreSQL's text: they cannot come in through the API.
 */
export function timestampFromPg(text: string): string {
  // The sessions run in UTC, so nearly every value is a UTC wall time with a four-digit year: the same text in the
  // API's form, without a trip through `Date` (PostgreSQL writes only valid calendar values).
  const fast = utcTimestampFromPg(text);
  if (fast !== undefined) return fast;
  const parts = pgTimestamp.exec(text);
  if (!parts || parts[12]) return text;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh, om, os] = parts;
  const instant =
    utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)) -
    offsetMillis(sign, oh, om, os);
  return instant >= firstInstant && instant < pastLastInstant ? formatInstant(instant, fraction) : text;
}

/** A bind parameter of a date type: a `Date` as ISO text (as the driver does), text as it is. */
function serializeDate(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * Types for the `postgres` driver: timestamptz, timestamp and date come back as text in the API's form instead
 * of `Date` objects. A date's ISO text (`YYYY-MM-DD`) already is the API's form.
 */
export const dateTypes = {
  apiDate: { to: 1082, from: [1082], serialize: serializeDate, parse: (text: string) => text },
  apiTimestamp: { to: 1184, from: [1114, 1184], serialize: serializeDate, parse: timestampFromPg },
};
