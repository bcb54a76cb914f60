import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Config, EventsConfig } from '../config';
import { ValidationError } from '../errors';

/**
 * What a registered function may point at, so that registering one never lets a caller run code of their choosing:
 * in the cloud, a Lambda function of the configured account whose name starts with the configured prefix (IAM
 * enforces the same pattern on the state machine and the events function); locally, a JavaScript module inside
 * the configured functions directory (relative, no `..`, no symbolic link out of it).
 */

const lambdaArn =
  /^arn:aws[a-z-]*:lambda:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):function:([A-Za-z0-9_-]{1,64})(?::[A-Za-z0-9_$-]{1,128})?$/;
const modulePath = /^[A-Za-z0-9_-][A-Za-z0-9_./-]{0,199}\.(?:mjs|cjs|js)$/;

const refuse = (message: string) => ValidationError.field('target', message, 'invalid_target');

/** Checks a cloud target: a Lambda ARN of the allowed account with the allowed name prefix. */
export function checkLambdaTarget(target: string, events: EventsConfig): string {
  const match = lambdaArn.exec(target);
  if (!match)
    throw refuse('Must be a Lambda function ARN (arn:aws:lambda:<region>:<account>:function:<name>).');
  if (!events.functionAccount || !events.functionPrefix)
    throw refuse('No account and name prefix are configured for event functions: none may be registered.');
  if (match[2] !== events.functionAccount || !match[3]?.startsWith(events.functionPrefix))
    throw refuse(
      `Must be a function of account ${events.functionAccount} whose name starts with "${events.functionPrefix}".`,
    );
  return target;
}

const inside = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * The absolute file of a local target, after checking that it stays inside the functions directory (also once
 * symbolic links are resolved) and exists. Used at registration and again before every run.
 */
export async function resolveModuleTarget(target: string, events: EventsConfig): Promise<string> {
  if (isAbsolute(target) || target.split(/[\\/]/).some((part) => part === '..' || part === '.'))
    throw refuse('Must be a relative path inside the functions directory, without "." or ".." segments.');
  if (!modulePath.test(target))
    throw refuse('Must be a .js, .mjs or .cjs module path of letters, digits, "-", "_", "/".');
  const dir = resolve(events.functionsDir);
  const file = resolve(dir, target);
  if (!inside(dir, file)) throw refuse('Must stay inside the functions directory.');
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    throw refuse(`No module "${target}" exists in the functions directory.`);
  }
  if (!inside(await realpath(dir), real)) throw refuse('Must stay inside the functions directory.');
  return real;
}

/** Checks a target against the rule of the runtime it will run on. */
export async function checkTarget(target: string, config: Config): Promise<string> {
  if (config.runtime === 'aws') return checkLambdaTarget(target, config.events);
  await resolveModuleTarget(target, config.events);
  return target;
}
