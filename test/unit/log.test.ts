import { describe, expect, it } from 'vitest';
import { redact } from '../../shared/log';

describe('redact', () => {
  it('hides secrets at any depth and keeps the rest', () => {
    expect(
      redact({
        user: 'ada',
        password: 'p',
        nested: { client_secret: 's', access_token: 't', list: [{ Authorization: 'Bearer x', ok: 1 }] },
      }),
    ).toEqual({
      user: 'ada',
      password: '[redacted]',
      nested: {
        client_secret: '[redacted]',
        access_token: '[redacted]',
        list: [{ Authorization: '[redacted]', ok: 1 }],
      },
    });
  });
});
