import { describe, expect, it } from 'vitest';
import { createLogger, redact } from '../../shared/log';

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

describe('createLogger', () => {
  it('says which levels it writes, for it and its children', () => {
    const log = createLogger('warn');
    expect([log.enabled?.('info'), log.enabled?.('warn'), log.enabled?.('error')]).toEqual([
      false,
      true,
      true,
    ]);
    expect(log.child({ request_id: 'r' }).enabled?.('info')).toBe(false);
    expect(createLogger('info').enabled?.('info')).toBe(true);
  });
});
