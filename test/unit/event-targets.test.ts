import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventsConfig } from '../../shared/config';
import { AppError } from '../../shared/errors';
import { checkLambdaTarget, resolveModuleTarget } from '../../shared/events/targets';

/** What a registered function may target: nothing outside the configured directory, account and prefix. */

const root = mkdtempSync(join(tmpdir(), 'event-targets-'));
const dir = join(root, 'functions');
mkdirSync(join(dir, 'nested'), { recursive: true });
writeFileSync(join(dir, 'ok.mjs'), 'export const handler = async () => ({});');
writeFileSync(join(dir, 'nested', 'deep.js'), 'export const handler = async () => ({});');
writeFileSync(join(root, 'outside.mjs'), 'export const handler = async () => ({});');
symlinkSync(join(root, 'outside.mjs'), join(dir, 'escape.mjs'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const events: EventsConfig = {
  functionsDir: dir,
  functionAccount: '123456789012',
  functionPrefix: 'tenant-fn-',
  functionTimeoutSeconds: 300,
  stateMachineArn: undefined,
};

async function refusal(work: () => Promise<unknown> | unknown): Promise<AppError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('local module targets', () => {
  it('accepts modules inside the directory, nested ones too', async () => {
    expect(await resolveModuleTarget('ok.mjs', events)).toBe(join(dir, 'ok.mjs'));
    expect(await resolveModuleTarget('nested/deep.js', events)).toBe(join(dir, 'nested', 'deep.js'));
  });

  it.each([
    '../outside.mjs',
    'nested/../../outside.mjs',
    './ok.mjs',
    '/etc/hosts.js',
    `${root}/outside.mjs`,
    'nested\\..\\..\\outside.mjs',
    'ok.ts',
    'ok',
    'missing.mjs',
  ])('refuses %s with a 400 naming target', async (target) => {
    const error = await refusal(() => resolveModuleTarget(target, events));
    expect(error.status).toBe(400);
    expect(error.fields).toHaveProperty('target');
  });

  it('refuses a symbolic link that leads out of the directory', async () => {
    const error = await refusal(() => resolveModuleTarget('escape.mjs', events));
    expect(error.message).toBe('Must stay inside the functions directory.');
  });
});

describe('cloud Lambda targets', () => {
  it('accepts a function (or alias) of the allowed account with the allowed prefix', () => {
    const arn = 'arn:aws:lambda:eu-west-1:123456789012:function:tenant-fn-welcome';
    expect(checkLambdaTarget(arn, events)).toBe(arn);
    expect(checkLambdaTarget(`${arn}:live`, events)).toBe(`${arn}:live`);
  });

  it.each([
    ['another account', 'arn:aws:lambda:eu-west-1:999999999999:function:tenant-fn-x'],
    ['another prefix', 'arn:aws:lambda:eu-west-1:123456789012:function:platform-accounts'],
    ['not an ARN', 'tenant-fn-x'],
    ['another service', 'arn:aws:states:eu-west-1:123456789012:stateMachine:tenant-fn-x'],
  ])('refuses %s', async (_case, arn) => {
    const error = await refusal(() => checkLambdaTarget(arn, events));
    expect(error.status).toBe(400);
  });

  it('refuses every ARN when no account or prefix is configured', async () => {
    const arn = 'arn:aws:lambda:eu-west-1:123456789012:function:tenant-fn-welcome';
    const error = await refusal(() => checkLambdaTarget(arn, { ...events, functionPrefix: undefined }));
    expect(error.message).toContain('none may be registered');
  });
});
