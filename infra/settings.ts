import { groups } from '../functions/groups';
import type { GroupName } from '../shared/api/route';
import { parseCorsOrigins } from '../shared/cors';
import type { JwtKeySettings } from './jwt-keys';
import type { PlatformStackProps } from './stack';

/**
 * The stack's settings from CDK context (`-c key=value`, or `cdk.json`): the stage's own block
 * (`stages.<stage>`) first, then any key given on the command line over it. docs/deploying.md lists the keys.
 */
export type Context = (key: string) => unknown;

/** The stack name of a stage: stages share an account side by side. */
export function stackName(stage: string): string {
  return `Platform-${stage}`;
}

/** The context keys of the stack's settings (docs/deploying.md lists them). */
export const settingKeys = [
  'deletionProtection',
  'defaultSite',
  'baseDomain',
  'corsOrigins',
  'domainName',
  'certificateArn',
  'issuer',
  'alarmEmail',
  'mailSender',
  'invitationLinkBase',
  'reservedConcurrency',
  'databaseMinCapacity',
  'databaseMaxCapacity',
  'jwtSigningKey',
  'jwtVerificationKeys',
  'EVENT_FUNCTION_TIMEOUT_SECONDS',
] as const;

/**
 * A production stage (`prod`, or a block with `"production": true`): every setting comes from its block in
 * cdk.json, committed, so that a plain `cdk deploy -c stage=prod` deploys the same domain, issuer, alarm e-mail
 * and CORS origins as the last one (a missing domain or issuer changes the JWT issuer and signs everyone out).
 */
export function isProduction(stage: string, block: Record<string, unknown>): boolean {
  return stage === 'prod' || block.production === true || block.production === 'true';
}

/** What a production stage must pin, each with what goes wrong without it. */
function requirePinned(stage: string, block: Record<string, unknown>, context: Context): void {
  const where = `cdk.json context.stages.${stage}`;
  for (const key of settingKeys) {
    const given = context(key);
    if (given !== undefined && JSON.stringify(given) !== JSON.stringify(block[key]))
      throw new Error(
        `${key} is pinned for the production stage "${stage}": change it in ${where} (committed), not with -c`,
      );
  }
  const missing: string[] = [];
  if (!block.issuer && !block.domainName)
    missing.push(
      'issuer or domainName (with certificateArn): without them the JWT issuer changes on a redeploy',
    );
  if (!block.alarmEmail) missing.push('alarmEmail: without it no alarm reaches anyone');
  if (block.corsOrigins === undefined)
    missing.push('corsOrigins: the browser origins, explicitly (an empty list for none)');
  if (missing.length > 0)
    throw new Error(`The production stage "${stage}" needs in ${where}: ${missing.join('; ')}`);
}

/** The stage's settings, from `-c stage=<name>` (default dev) and the context keys. */
export function stackSettings(context: Context): PlatformStackProps & { stage: string } {
  const stage = String(context('stage') ?? 'dev');
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage))
    throw new Error(`stage "${stage}": lower-case letters, digits, -`);
  const stages = (context('stages') ?? {}) as Record<string, Record<string, unknown>>;
  const block = stages[stage] ?? {};
  if (isProduction(stage, block)) requirePinned(stage, block, context);
  const get = (key: string): unknown => context(key) ?? block[key];
  const text = (key: string) => (get(key) === undefined ? undefined : String(get(key)));
  const domainName = text('domainName');
  const certificateArn = text('certificateArn');
  if (Boolean(domainName) !== Boolean(certificateArn)) {
    throw new Error('domainName and certificateArn go together');
  }
  return {
    stage,
    deletionProtection: text('deletionProtection') !== 'false',
    defaultSite: text('defaultSite'),
    baseDomain: text('baseDomain'),
    corsOrigins: corsOrigins(get('corsOrigins')),
    domain: domainName && certificateArn ? { name: domainName, certificateArn } : undefined,
    issuer: text('issuer'),
    alarmEmail: text('alarmEmail'),
    mailSender: text('mailSender'),
    invitationLinkBase: text('invitationLinkBase'),
    reservedConcurrency: reservedConcurrency(get('reservedConcurrency')),
    databaseCapacity: capacity(get('databaseMinCapacity'), get('databaseMaxCapacity')),
    jwtKeys: jwtKeys(get('jwtSigningKey'), get('jwtVerificationKeys')),
    userCreationHookTimeoutSeconds:
      get('EVENT_FUNCTION_TIMEOUT_SECONDS') === undefined
        ? undefined
        : Number(get('EVENT_FUNCTION_TIMEOUT_SECONDS')),
  };
}

/** `-c jwtSigningKey=2 -c jwtVerificationKeys=1` (a list or `1,3`): the rotation's key generations. */
function jwtKeys(signing: unknown, verification: unknown): JwtKeySettings | undefined {
  if (signing === undefined && verification === undefined) return undefined;
  const generation = (raw: unknown, key: string) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${key}: a key generation (1, 2, ...)`);
    return value;
  };
  const listed =
    verification === undefined
      ? []
      : Array.isArray(verification)
        ? verification
        : String(verification)
            .split(',')
            .filter((item) => item.trim() !== '');
  return {
    signing: signing === undefined ? 1 : generation(signing, 'jwtSigningKey'),
    verification: listed.map((item) => generation(item, 'jwtVerificationKeys')),
  };
}

/** `-c corsOrigins=https://app.example.com,https://admin.example.com`, read like the local CORS_ORIGINS. */
function corsOrigins(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseCorsOrigins(Array.isArray(raw) ? raw.join(',') : String(raw));
  if ('error' in parsed) throw new Error(`corsOrigins ${parsed.error}`);
  return parsed;
}

/** `auth=20,data=100` on the command line, or an object in cdk.json. */
function reservedConcurrency(raw: unknown): Partial<Record<GroupName, number>> | undefined {
  if (raw === undefined) return undefined;
  const pairs =
    typeof raw === 'string'
      ? raw.split(',').map((pair) => pair.split('=') as [string, string])
      : Object.entries(raw as Record<string, unknown>);
  const out: Partial<Record<GroupName, number>> = {};
  for (const [group, value] of pairs) {
    const count = Number(value);
    if (!(group in groups)) throw new Error(`reservedConcurrency: no group "${group}"`);
    if (!Number.isInteger(count) || count < 1)
      throw new Error(`reservedConcurrency.${group}: a positive integer`);
    out[group as GroupName] = count;
  }
  return out;
}

function capacity(min: unknown, max: unknown): { min: number; max: number } | undefined {
  if (min === undefined && max === undefined) return undefined;
  return { min: Number(min ?? 0.5), max: Number(max ?? 4) };
}
