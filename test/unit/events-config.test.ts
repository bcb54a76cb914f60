import { describe, expect, it } from 'vitest';
import { userCreationDefinition } from '../../infra/events';
import { loadConfig } from '../../shared/config';

/** The events settings: the spec's 300 s default timeout, under the synchronous Express limit. */

describe('events settings', () => {
  it('defaults to a 300 s subscriber timeout, the local functions directory and no cloud targets', () => {
    expect(loadConfig({}).events).toEqual({
      functionsDir: 'functions/subscribers',
      functionAccount: undefined,
      functionPrefix: undefined,
      functionTimeoutSeconds: 300,
      stateMachineArn: undefined,
    });
  });

  it.each(['0', '301', 'soon', '-1'])('refuses EVENT_FUNCTION_TIMEOUT_SECONDS=%s by name', (value) => {
    expect(() => loadConfig({ EVENT_FUNCTION_TIMEOUT_SECONDS: value })).toThrow(
      /EVENT_FUNCTION_TIMEOUT_SECONDS/,
    );
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
