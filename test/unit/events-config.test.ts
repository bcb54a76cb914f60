import { describe, expect, it } from 'vitest';
import { userCreationDefinition } from '../../infra/events';
import { loadConfig } from '../../shared/config';

/**
 * The events settings: a PRE_USER_CREATE subscriber holds a user creation, which may be an HTTP request behind API
 * Gateway's 29 s integration timeout, so its timeout defaults to 10 s and is at most 25 s (docs/events.md).
 */

describe('events settings', () => {
  it('defaults to a 10 s subscriber timeout, the local functions directory and no cloud targets', () => {
    expect(loadConfig({}).events).toEqual({
      functionsDir: 'functions/subscribers',
      functionAccount: undefined,
      functionPrefix: undefined,
      functionTimeoutSeconds: 10,
      stateMachineArn: undefined,
    });
  });

  it.each(['0', '26', '300', 'soon', '-1'])('refuses EVENT_FUNCTION_TIMEOUT_SECONDS=%s by name', (value) => {
    expect(() => loadConfig({ EVENT_FUNCTION_TIMEOUT_SECONDS: value })).toThrow(
      /EVENT_FUNCTION_TIMEOUT_SECONDS must be a number in \(0, 25\]/,
    );
  });

  it('takes any timeout up to 25 s, fractions included (tests use a fraction of a second)', () => {
    expect(loadConfig({ EVENT_FUNCTION_TIMEOUT_SECONDS: '25' }).events.functionTimeoutSeconds).toBe(25);
    expect(loadConfig({ EVENT_FUNCTION_TIMEOUT_SECONDS: '0.2' }).events.functionTimeoutSeconds).toBe(0.2);
  });

  it('refuses a malformed account or prefix by name', () => {
    expect(() => loadConfig({ EVENT_FUNCTION_ACCOUNT: '12345' })).toThrow(/EVENT_FUNCTION_ACCOUNT/);
    expect(() => loadConfig({ EVENT_FUNCTION_PREFIX: 'a*' })).toThrow(/EVENT_FUNCTION_PREFIX/);
  });

  it('gives each Lambda invoke task of the state machine the 300 s default, and the execution the same limit', () => {
    const asl = userCreationDefinition(300) as { TimeoutSeconds: number; States: Record<string, any> };
    expect(asl.TimeoutSeconds).toBe(300);
    expect(asl.States.Subscribers.ItemProcessor.States.InvokeSubscriber.TimeoutSeconds).toBe(300);
  });
});
