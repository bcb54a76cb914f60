import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { groups } from '../functions/groups';
import type { GroupName } from '../shared/api/route';
import { parseCorsOrigins } from '../shared/cors';
import { defaultAccountConcurrency, sweeperConcurrency, unreservedMinimum } from './concurrency';
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
  'account',
  'region',
  'logRetentionDays',
  'backupRetentionDays',
  'backupCopyVaultArn',
  'accountConcurrency',
  'databaseReader',
  'sourceMaps',
  'eventFunctionAccount',
  'kmsEccQuota',
] as const;

/** The retentions CloudWatch Logs accepts, in days (RetentionDays). */
const logRetentions = Object.values(RetentionDays).filter(
  (value): value is RetentionDays => typeof value === 'number' && value > 0,
);

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
  if (!block.account || !block.region)
    missing.push(
      "account and region: without them the stack goes wherever the deployer's credentials point (a second, empty prod)",
    );
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
  const production = isProduction(stage, block);
  const account = text('account');
  const region = text('region');
  if (account !== undefined && !/^\d{12}$/.test(account)) throw new Error('account: 12 digits');
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))
    throw new Error(`region "${region}": an AWS region name such as eu-west-1`);
  const eventAccount = text('eventFunctionAccount');
  if (eventAccount !== undefined && !/^\d{12}$/.test(eventAccount))
    throw new Error('eventFunctionAccount: 12 digits');
  const reserved = reservedConcurrency(get('reservedConcurrency'));
  const accountConcurrency = positiveInteger(get('accountConcurrency'), 'accountConcurrency');
  checkReservations(reserved, accountConcurrency ?? defaultAccountConcurrency);
  return {
    stage,
    ...(account || region ? { env: { account, region } } : {}),
    logRetention: logRetention(get('logRetentionDays'), production),
    backupRetentionDays: backupRetention(get('backupRetentionDays'), production),
    backupCopyVaultArn: text('backupCopyVaultArn'),
    accountConcurrency,
    kmsEccQuota: positiveInteger(get('kmsEccQuota'), 'kmsEccQuota'),
    databaseReader: flag(get('databaseReader'), 'databaseReader'),
    sourceMaps: flag(get('sourceMaps'), 'sourceMaps') ?? !production,
    eventFunctions: eventAccount ? { account: eventAccount } : undefined,
    deletionProtection: text('deletionProtection') !== 'false',
    defaultSite: text('defaultSite'),
    baseDomain: text('baseDomain'),
    corsOrigins: corsOrigins(get('corsOrigins')),
    domain: domainName && certificateArn ? { name: domainName, certificateArn } : undefined,
    issuer: text('issuer'),
    alarmEmail: text('alarmEmail'),
    mailSender: text('mailSender'),
    invitationLinkBase: text('invitationLinkBase'),
    reservedConcurrency: reserved,
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

/** `logRetentionDays`: one of CloudWatch Logs' retentions (default a year in production, a month elsewhere). */
function logRetention(raw: unknown, production: boolean): RetentionDays {
  if (raw === undefined) return production ? RetentionDays.ONE_YEAR : RetentionDays.ONE_MONTH;
  const days = Number(raw);
  if (!logRetentions.includes(days))
    throw new Error(`logRetentionDays: one of CloudWatch Logs' retentions (${logRetentions.join(', ')})`);
  return days as RetentionDays;
}

/**
 * `backupRetentionDays`: how far back both stores can be restored, Aurora's backups and DynamoDB's point-in-time
 * recovery alike (1 to 35; default 35 in production, 7 elsewhere), so that a restore of both to one moment
 * (docs/deploying.md, "Restoring the data") has the whole window.
 */
function backupRetention(raw: unknown, production: boolean): number {
  if (raw === undefined) return production ? 35 : 7;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1 || days > 35)
    throw new Error('backupRetentionDays: a whole number of days from 1 to 35');
  return days;
}

function positiveInteger(raw: unknown, key: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${key}: a positive integer`);
  return value;
}

function flag(raw: unknown, key: string): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`${key}: true or false, got ${JSON.stringify(raw)}`);
}

/**
 * The reservations (the groups', and the deletion sweeper's one) come out of the account's concurrency quota, and
 * Lambda refuses any that would leave fewer than 100 unreserved: refused here, at synthesis, rather than by a
 * failed deployment.
 */
function checkReservations(
  reserved: Partial<Record<GroupName, number>> | undefined,
  accountConcurrency: number,
): void {
  const total = Object.values(reserved ?? {}).reduce((sum, count) => sum + count, sweeperConcurrency);
  if (accountConcurrency - total < unreservedMinimum)
    throw new Error(
      `reservedConcurrency: ${total} reserved (the deletion sweeper's ${sweeperConcurrency} included) leaves ` +
        `${accountConcurrency - total} of accountConcurrency ${accountConcurrency} unreserved; Lambda keeps at ` +
        `least ${unreservedMinimum}: lower the reservations or raise the quota (and accountConcurrency)`,
    );
}
