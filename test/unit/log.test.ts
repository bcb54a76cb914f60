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

describe('a child logger', () => {
  it("writes its parent's fields and its own, redacted, as they were when it was made", () => {
    const lines: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((line: string) => {
      lines.push(line);
      return true;
    }) as typeof process.stdout.write;
    try {
      const fields: Record<string, unknown> = { request_id: 'r1', token: 't' };
      const child = createLogger('info', { service: 's' }).child(fields).child({ step: 2 });
      fields.request_id = 'changed';
      child.info('hello', { password: 'p', n: 1 });
      child.debug('not written');
    } finally {
      process.stdout.write = write;
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 'info',
      message: 'hello',
      service: 's',
      request_id: 'r1',
      token: '[redacted]',
      step: 2,
      password: '[redacted]',
      n: 1,
    });
  });
});
