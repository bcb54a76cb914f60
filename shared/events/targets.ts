import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Config, EventsConfig } from '../config';
import { ValidationError } from '../errors';

/**
 * What a registered function may point at, so that registering one never lets a caller run code of their choosing
 * nor send their users to another site's code. The rule is per site (docs/events.md, "Targets"):
 * - in the cloud, a Lambda function of the configured account whose name starts with `<prefix><site-slug>--`
 *   (`tenant-fn-shop--welcome` for site `shop`). Slugs never hold `--`, so the site a name belongs to is
 *   unambiguous: `tenant-fn-shop--…` can never be a function of site `shop-eu` (`tenant-fn-shop-eu--…`). IAM enforces
 *   the prefix on the state machine and the publishing functions; the site part is this check's.
 * - locally, a JavaScript module inside the configured functions directory (relative, no `..`, no symbolic link out
 *   of it), either in the site's own folder `<site-slug>/` or at the directory's top level (modules shared by every
 *   site: the examples, a developer's experiments).
 * Checked at registration and again before every run (functions/events and shared/events/guard.ts).
 */

/** What separates the site's slug from the function's own name in a cloud function name: slugs cannot hold it. */
export const siteSeparator = '--';

const lambdaArn =
  /^arn:aws[a-z-]*:lambda:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):function:([A-Za-z0-9_-]{1,64})(?::[A-Za-z0-9_$-]{1,128})?$/;
const modulePath = /^[A-Za-z0-9_-][A-Za-z0-9_./-]{0,199}\.(?:mjs|cjs|js)$/;

/** A 400 naming the field, in every envelope (the events envelope shows only the message). */
const refuse = (message: string) =>
  new ValidationError({
    fields: { target: [message] },
    message: `target: ${message}`,
    code: 'invalid_target',
  });

/** How the name of a cloud function of this site must start: `<prefix><site-slug>--`. */
export const lambdaNameStart = (prefix: string, site: string) => `${prefix}${site}${siteSeparator}`;

/** Checks a cloud target: a Lambda ARN of the allowed account whose name starts with `<prefix><site>--`. */
export function checkLambdaTarget(target: string, events: EventsConfig, site: string): string {
  const match = lambdaArn.exec(target);
  if (!match)
    throw refuse('Must be a Lambda function ARN (arn:aws:lambda:<region>:<account>:function:<name>).');
  if (!events.functionAccount || !events.functionPrefix)
    throw refuse('No account and name prefix are configured for event functions: none may be registered.');
  const start = lambdaNameStart(events.functionPrefix, site);
  const name = match[3] ?? '';
  if (match[2] !== events.functionAccount || !name.startsWith(start) || name.length === start.length)
    throw refuse(
      `Must be a function of account ${events.functionAccount} whose name starts with "${start}" (the prefix, the site's slug and "--") followed by the function's own name.`,
    );
  return target;
}

/** The path of `path` under `dir`, split in segments; undefined when it is not strictly inside. */
function segmentsInside(dir: string, path: string): string[] | undefined {
  const rel = relative(dir, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep);
}

/** A module at the top level (shared by every site) or in the site's own folder. */
const siteMayUse = (segments: string[], site: string) => segments.length === 1 || segments[0] === site;

/**
 * The absolute file of a local target, after checking that it stays inside the functions directory (also once
 * symbolic links are resolved), in the site's folder or at the top level, and exists. Used at registration and again
 * before every run.
 */
export async function resolveModuleTarget(
  target: string,
  events: EventsConfig,
  site: string,
): Promise<string> {
  if (isAbsolute(target) || target.split(/[\\/]/).some((part) => part === '..' || part === '.'))
    throw refuse('Must be a relative path inside the functions directory, without "." or ".." segments.');
  if (!modulePath.test(target))
    throw refuse('Must be a .js, .mjs or .cjs module path of letters, digits, "-", "_", "/".');
  const dir = resolve(events.functionsDir);
  const file = resolve(dir, target);
  const named = segmentsInside(dir, file);
  if (!named) throw refuse('Must stay inside the functions directory.');
  const notTheSite = () =>
    refuse(
      `Must be a module of this site's folder "${site}/" or a shared module at the top of the functions directory.`,
    );
  if (!siteMayUse(named, site)) throw notTheSite();
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    throw refuse(`No module "${target}" exists in the functions directory.`);
  }
  const resolved = segmentsInside(await realpath(dir), real);
  if (!resolved) throw refuse('Must stay inside the functions directory.');
  // A link may lead into another site's folder: the file it resolves to must satisfy the rule too.
  if (!siteMayUse(resolved, site)) throw notTheSite();
  return real;
}

/** Checks a target of the site against the rule of the runtime it will run on. */
export async function checkTarget(target: string, config: Config, site: string): Promise<string> {
  if (config.runtime === 'aws') return checkLambdaTarget(target, config.events, site);
  await resolveModuleTarget(target, config.events, site);
  return target;
}
