import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDateTime, isApiDate, isApiDateTime, timestampFromPg } from '../../shared/api/datetimes';

/**
 * Property tests run a fixed number of cases (numRuns), each limited far above what it takes on a quiet machine
 * (measured as CPU time: at most 3 s), so a busy machine slows them but never fails them.
 */
const propertyTimeout = { timeout: 60_000 };

describe('timestampFromPg', () => {
  it.each([
    ['0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000Z'],
    ['0099-12-31 23:59:59.999+00', '0099-12-31T23:59:59.999Z'],
    ['2024-02-29 10:11:12.123456+00', '2024-02-29T10:11:12.123456Z'],
    ['2024-02-29 10:11:12.5+05:30', '2024-02-29T04:41:12.500Z'],
    ['0050-01-01 00:53:28+00:53:28', '0050-01-01T00:00:00.000Z'],
    ['9999-12-31 23:59:59.999999+00', '9999-12-31T23:59:59.999999Z'],
    ['2024-02-29 10:11:12', '2024-02-29T10:11:12.000Z'],
    ['2024-02-29 10:11:12.1', '2024-02-29T10:11:12.100Z'],
    ['2024-02-29 10:11:12.000100+00', '2024-02-29T10:11:12.000100Z'],
    ['2024-02-29 10:11:12.120000+00', '2024-02-29T10:11:12.120Z'],
    ['2024-02-29 10:11:12+01', '2024-02-29T09:11:12.000Z'],
    ['2024-02-29 10:11:12-00:30', '2024-02-29T10:41:12.000Z'],
    ['2024-02-29 10:11:12.1230+00', '2024-02-29T10:11:12.123Z'],
    ['2024-02-29 10:11:12.12300', '2024-02-29T10:11:12.123Z'],
    ['2024-02-29 10:11:12.12345', '2024-02-29T10:11:12.123450Z'],
    ['2024-02-29 10:11:12.1234+00', '2024-02-29T10:11:12.123400Z'],
    ['2024-02-29 10:11:12.12+00', '2024-02-29T10:11:12.120Z'],
  ])('reads %s as %s', (text, shown) => {
    expect(timestampFromPg(text)).toBe(shown);
  });

  it.each([
    '0001-12-31 23:59:59+00 BC',
    '10000-01-01 00:00:00+00',
    'infinity',
    '-infinity',
    '2024-02-29 10:11:12.+00',
    '2024-02-29 10:11:12.1234567+00',
    '2024-02-29T10:11:12+00',
    '2024-02-29 10:11:1x+00',
  ])('keeps what the API cannot represent as PostgreSQL wrote it: %s', (text) => {
    expect(timestampFromPg(text)).toBe(text);
  });

  it('round-trips every instant of years 0001-9999 with microseconds', propertyTimeout, () => {
    const first = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
    const last = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    fc.assert(
      fc.property(
        fc.integer({ min: first, max: last }),
        fc.integer({ min: 0, max: 999 }),
        (millis, micros) => {
          const iso = new Date(millis).toISOString(); // toISOString is exact for four-digit years
          const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`;
          const pgText = `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${fraction}+00`;
          const shown = timestampFromPg(pgText);
          expect(shown.slice(0, 19)).toBe(iso.slice(0, 19));
          // The same as through the offset's general path (a zero offset written out).
          expect(timestampFromPg(`${pgText}:00`)).toBe(shown);
          expect(canonicalDateTime(shown)).toBe(shown);
          expect(isApiDateTime(shown)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('isApiDateTime and isApiDate', () => {
  it('takes the edges of the range and refuses one step beyond', () => {
    expect(isApiDateTime('0001-01-01T00:00:00Z')).toBe(true);
    expect(isApiDateTime('0000-12-31T23:59:59.999999Z')).toBe(false);
    expect(isApiDateTime('9999-12-31T23:59:59.999999Z')).toBe(true);
    expect(isApiDateTime('9999-12-31T23:00:00-01:00')).toBe(false);
    expect(isApiDateTime('2024-01-01T00:00:00.1234567Z')).toBe(false);
    expect(isApiDate('0001-01-01')).toBe(true);
    expect(isApiDate('0000-01-01')).toBe(false);
    expect(isApiDate('9999-12-31')).toBe(true);
  });

  it('puts values with offsets in UTC', () => {
    expect(canonicalDateTime('0001-01-01T01:00:00+01:00')).toBe('0001-01-01T00:00:00.000Z');
    expect(canonicalDateTime('2024-06-01T00:00:00.000100-02:00')).toBe('2024-06-01T02:00:00.000100Z');
  });
});
