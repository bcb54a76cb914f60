import { describe, expect, it } from 'vitest';
import { jsonDepth, maxJsonDepth, readJsonBody } from '../../shared/api/body';
import { AppError } from '../../shared/errors';

const json = { 'content-type': 'application/json' };

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('jsonDepth', () => {
  it('counts nesting, brackets inside strings aside', () => {
    expect(jsonDepth('{"a": [1, {"b": "[[[{{{"}]}')).toBe(3);
    expect(jsonDepth('"\\"[["')).toBe(0);
    expect(jsonDepth('[]')).toBe(1);
  });
});

describe('readJsonBody', () => {
  it('reads JSON bodies of JSON media types', () => {
    expect(readJsonBody({ body: '{"a":1}' }, json)).toEqual({ a: 1 });
    expect(
      readJsonBody({ body: '[1]' }, { 'content-type': 'application/merge-patch+json; charset=utf-8' }),
    ).toEqual([1]);
    expect(readJsonBody({ body: '' }, json)).toBeUndefined();
  });

  it('refuses a body without a content type or with another one', () => {
    for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/jsonx' }]) {
      const error = refusal(() => readJsonBody({ body: '{"a":1}' }, headers));
      expect(error).toMatchObject({ status: 400, code: 'unsupported_media_type' });
    }
  });

  it('refuses nesting deeper than the limit before parsing, at any depth up to huge ones', () => {
    expect(
      readJsonBody({ body: `${'['.repeat(maxJsonDepth)}${']'.repeat(maxJsonDepth)}` }, json),
    ).toBeDefined();
    for (const depth of [maxJsonDepth + 1, 5_000, 200_000]) {
      const error = refusal(() => readJsonBody({ body: `${'['.repeat(depth)}${']'.repeat(depth)}` }, json));
      expect(error).toMatchObject({ status: 400, code: 'parse_error' });
    }
  });

  it('refuses numbers beyond a double, naming the field', () => {
    const error = refusal(() => readJsonBody({ body: '{"n": 1e999, "list": [1, -1e400]}' }, json));
    expect(error.status).toBe(400);
    expect(error.fields).toEqual({
      n: ['Number out of range: JSON numbers must fit a 64-bit float.'],
      'list.1': ['Number out of range: JSON numbers must fit a 64-bit float.'],
    });
  });

  it('refuses lone surrogates and U+0000, naming the field, and keeps valid pairs', () => {
    const error = refusal(() =>
      readJsonBody({ body: '{"a": "x\\ud800", "b": {"c": "\\udc00"}, "d": "\\u0000"}' }, json),
    );
    expect(Object.keys(error.fields ?? {})).toEqual(['a', 'b.c', 'd']);
    expect(readJsonBody({ body: '{"a": "\\ud83d\\ude00"}' }, json)).toEqual({ a: '😀' });
  });

  it('refuses a bare null body', () => {
    expect(refusal(() => readJsonBody({ body: 'null' }, json)).status).toBe(400);
  });

  it('keeps __proto__ and constructor as ordinary keys', () => {
    const value = readJsonBody({ body: '{"__proto__": {"x": 1}, "constructor": 1}' }, json) as object;
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
  });

  it('refuses base64 bodies that are not UTF-8', () => {
    const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]).toString(
      'base64',
    );
    expect(refusal(() => readJsonBody({ body, isBase64Encoded: true }, json)).status).toBe(400);
    const good = Buffer.from('{"a":"é"}').toString('base64');
    expect(readJsonBody({ body: good, isBase64Encoded: true }, json)).toEqual({ a: 'é' });
  });
});
