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
const handler = 'export const handler = async () => ({});';
for (const site of ['shop', 'shop-eu']) mkdirSync(join(dir, site, 'nested'), { recursive: true });
writeFileSync(join(dir, 'ok.mjs'), handler);
writeFileSync(join(dir, 'shop', 'nested', 'deep.js'), handler);
writeFileSync(join(dir, 'shop-eu', 'theirs.mjs'), handler);
writeFileSync(join(root, 'outside.mjs'), handler);
symlinkSync(join(root, 'outside.mjs'), join(dir, 'escape.mjs'));
symlinkSync(join(dir, 'shop-eu', 'theirs.mjs'), join(dir, 'shop', 'borrowed.mjs'));
symlinkSync(join(dir, 'shop-eu', 'theirs.mjs'), join(dir, 'borrowed.mjs'));
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
  it("accepts shared modules at the top and modules of the site's folder, nested ones too", async () => {
    expect(await resolveModuleTarget('ok.mjs', events, 'shop')).toBe(join(dir, 'ok.mjs'));
    expect(await resolveModuleTarget('shop/nested/deep.js', events, 'shop')).toBe(
      join(dir, 'shop', 'nested', 'deep.js'),
    );
    expect(await resolveModuleTarget('shop-eu/theirs.mjs', events, 'shop-eu')).toBe(
      join(dir, 'shop-eu', 'theirs.mjs'),
    );
  });

  it.each([
    ['shop-eu/theirs.mjs', 'shop'],
    ['shop/nested/deep.js', 'shop-eu'],
    ['shop/borrowed.mjs', 'shop'],
    ['borrowed.mjs', 'shop'],
    ['shop/nested/deep.js', 'nested'],
  ])("refuses %s to site %s: another site's folder, or a link into it", async (target, site) => {
    const error = await refusal(() => resolveModuleTarget(target, events, site));
    expect(error.status).toBe(400);
    expect(error.fields).toEqual({
      target: [
        `Must be a module of this site's folder "${site}/" or a shared module at the top of the functions directory.`,
      ],
    });
  });

  it.each([
    '../outside.mjs',
    'shop/../../outside.mjs',
    './ok.mjs',
    '/etc/hosts.js',
    `${root}/outside.mjs`,
    'shop\\..\\..\\outside.mjs',
    'ok.ts',
    'ok',
    'missing.mjs',
  ])('refuses %s with a 400 naming target', async (target) => {
    const error = await refusal(() => resolveModuleTarget(target, events, 'shop'));
    expect(error.status).toBe(400);
    expect(error.fields).toHaveProperty('target');
    expect(error.message).toMatch(/^target: /);
  });

  it('refuses a symbolic link that leads out of the directory', async () => {
    const error = await refusal(() => resolveModuleTarget('escape.mjs', events, 'shop'));
    expect(error.message).toBe('target: Must stay inside the functions directory.');
  });
});

describe('cloud Lambda targets', () => {
  const arn = (name: string, account = '123456789012') =>
    `arn:aws:lambda:eu-west-1:${account}:function:${name}`;

  it('accepts a function (or alias) of the allowed account named <prefix><site>--<name>', () => {
    expect(checkLambdaTarget(arn('tenant-fn-shop--welcome'), events, 'shop')).toBe(
      arn('tenant-fn-shop--welcome'),
    );
    expect(checkLambdaTarget(`${arn('tenant-fn-shop--welcome')}:live`, events, 'shop')).toBe(
      `${arn('tenant-fn-shop--welcome')}:live`,
    );
    expect(checkLambdaTarget(arn('tenant-fn-shop-eu--x'), events, 'shop-eu')).toBe(
      arn('tenant-fn-shop-eu--x'),
    );
  });

  it.each([
    ['another account', arn('tenant-fn-shop--x', '999999999999'), 'shop'],
    ['another prefix', arn('platform-accounts'), 'shop'],
    ['not an ARN', 'tenant-fn-shop--x', 'shop'],
    ['another service', 'arn:aws:states:eu-west-1:123456789012:stateMachine:tenant-fn-shop--x', 'shop'],
    ['the shared prefix alone (registered before the per-site rule)', arn('tenant-fn-welcome'), 'shop'],
    ["another site's function", arn('tenant-fn-shop-eu--x'), 'shop'],
    ["a function of the site whose slug is this one's prefix", arn('tenant-fn-shop--x'), 'shop-eu'],
    ['a single hyphen after the slug', arn('tenant-fn-shop-welcome'), 'shop'],
    ['no name after the separator', arn('tenant-fn-shop--'), 'shop'],
  ])('refuses %s', async (_case, target, site) => {
    const error = await refusal(() => checkLambdaTarget(target, events, site));
    expect(error.status).toBe(400);
    expect(error.fields).toHaveProperty('target');
    expect(error.message).toMatch(/^target: /);
  });

  it('says how the name must start', async () => {
    const error = await refusal(() => checkLambdaTarget(arn('tenant-fn-welcome'), events, 'shop'));
    expect(error.message).toBe(
      'target: Must be a function of account 123456789012 whose name starts with "tenant-fn-shop--" (the prefix, the site\'s slug and "--") followed by the function\'s own name.',
    );
  });

  it('refuses every ARN when no account or prefix is configured', async () => {
    const target = arn('tenant-fn-shop--welcome');
    const error = await refusal(() =>
      checkLambdaTarget(target, { ...events, functionPrefix: undefined }, 'shop'),
    );
    expect(error.message).toContain('none may be registered');
  });
});
