import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { groups, routesOf } from '../../functions/groups';
import type { JwtKeySettings } from '../../infra/jwt-keys';
import { stackSettings } from '../../infra/settings';
import { PlatformStack } from '../../infra/stack';

/**
 * The signing key rotation in the template (docs/deploying.md, rotation): each phase's keys, the functions'
 * environment, and the grants (every function reads every published key's public half; only the auth function
 * signs, with the signing key only). Generation 1 keeps the logical id of the stacks from before rotations.
 */

function synth(jwtKeys?: JwtKeySettings): Template {
  // Skip esbuild bundling of the function assets: the template is what these tests check.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(
    new PlatformStack(app, 'Test', { deletionProtection: true, ...(jwtKeys ? { jwtKeys } : {}) }),
  );
}

type Resource = { Properties: Record<string, any>; DeletionPolicy?: string };

/** The signing keys' logical ids by generation (1 is `JwtSigningKey…`, n is `JwtSigningKey<n>…`). */
function signingKeys(template: Template): Record<number, string> {
  const keys = template.findResources('AWS::KMS::Key', { Properties: { KeySpec: 'ECC_NIST_P256' } });
  const out: Record<number, string> = {};
  for (const [id, key] of Object.entries(keys) as [string, Resource][]) {
    expect(key.Properties.KeyUsage).toBe('SIGN_VERIFY');
    expect(key.DeletionPolicy).toBe('Retain');
    const generation = /^JwtSigningKey(\d*)[0-9A-F]{8}$/.exec(id)?.[1];
    expect(generation, id).toBeDefined();
    out[generation ? Number(generation) : 1] = id;
  }
  return out;
}

const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/** Each group function's JWT environment variables. */
function environments(template: Template): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const fn of Object.values(template.findResources('AWS::Lambda::Function')) as Resource[]) {
    const group = Object.values(groups).find((g) => g.description === fn.Properties.Description);
    if (!group || routesOf(group.name).length === 0) continue;
    const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
    out.set(group.name, {
      JWT_SIGNING_KEY_ID: variables.JWT_SIGNING_KEY_ID,
      JWT_VERIFICATION_KEY_IDS: variables.JWT_VERIFICATION_KEY_IDS,
    });
  }
  return out;
}

/** The KMS grants as `role action key` lines. */
function kmsGrants(template: Template, keys: Record<number, string>): string[] {
  const byId = Object.fromEntries(Object.entries(keys).map(([generation, id]) => [id, generation]));
  const lines: string[] = [];
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]) {
    const roles = (policy.Properties.Roles as { Ref: string }[]).map((role) =>
      role.Ref.replace(/Role[0-9A-F]{8}$/, ''),
    );
    for (const statement of policy.Properties.PolicyDocument.Statement as {
      Action: unknown;
      Resource: unknown;
    }[]) {
      const actions = [statement.Action].flat() as string[];
      const resources = [statement.Resource].flat() as { 'Fn::GetAtt'?: [string, string] }[];
      for (const action of actions.filter((a) => a === 'kms:GetPublicKey' || a === 'kms:Sign')) {
        for (const resource of resources) {
          const generation = byId[resource['Fn::GetAtt']?.[0] ?? ''];
          expect(generation, `${action} on ${JSON.stringify(resource)}`).toBeDefined();
          for (const role of roles) lines.push(`${role} ${action} ${generation}`);
        }
      }
    }
  }
  return lines.sort();
}

const functionNames = () =>
  Object.values(groups)
    .filter((group) => routesOf(group.name).length > 0)
    .map((group) => group.name.charAt(0).toUpperCase() + group.name.slice(1));

function expectedGrants(published: number[], signing: number): string[] {
  return functionNames()
    .flatMap((fn) => [
      ...published.map((generation) => `${fn} kms:GetPublicKey ${generation}`),
      ...(fn === 'Auth' ? [`${fn} kms:Sign ${signing}`] : []),
    ])
    .sort();
}

describe('JWT signing keys', () => {
  const before = synth();

  it('has one key by default, generation 1, signing, with no other key published', () => {
    const keys = signingKeys(before);
    expect(Object.keys(keys)).toEqual(['1']);
    for (const env of environments(before).values()) {
      expect(env).toEqual({
        JWT_SIGNING_KEY_ID: arn(keys[1] as string),
        JWT_VERIFICATION_KEY_IDS: undefined,
      });
    }
    expect(kmsGrants(before, keys)).toEqual(expectedGrants([1], 1));
  });

  it('publishes the next key beside the current one, which still signs', () => {
    const template = synth({ signing: 1, verification: [2] });
    const keys = signingKeys(template);
    expect(keys[1]).toBe(signingKeys(before)[1]);
    expect(Object.keys(keys)).toEqual(['1', '2']);
    for (const env of environments(template).values()) {
      expect(env).toEqual({
        JWT_SIGNING_KEY_ID: arn(keys[1] as string),
        JWT_VERIFICATION_KEY_IDS: arn(keys[2] as string),
      });
    }
    expect(kmsGrants(template, keys)).toEqual(expectedGrants([1, 2], 1));
  });

  it('switches signing to the next key and keeps the previous one published', () => {
    const template = synth({ signing: 2, verification: [1] });
    const keys = signingKeys(template);
    expect(keys[1]).toBe(signingKeys(before)[1]);
    for (const env of environments(template).values()) {
      expect(env).toEqual({
        JWT_SIGNING_KEY_ID: arn(keys[2] as string),
        JWT_VERIFICATION_KEY_IDS: arn(keys[1] as string),
      });
    }
    expect(kmsGrants(template, keys)).toEqual(expectedGrants([1, 2], 2));
  });

  it('drops the old key from the stack once its tokens have expired', () => {
    const template = synth({ signing: 2, verification: [] });
    const keys = signingKeys(template);
    expect(Object.keys(keys)).toEqual(['2']);
    expect(kmsGrants(template, keys)).toEqual(expectedGrants([2], 2));
  });

  it('reads the phase from the context keys jwtSigningKey and jwtVerificationKeys', () => {
    const context: Record<string, unknown> = { jwtSigningKey: '2', jwtVerificationKeys: '1,3' };
    expect(stackSettings((key) => context[key]).jwtKeys).toEqual({ signing: 2, verification: [1, 3] });
    const block = {
      stages: { staging: { jwtSigningKey: 1, jwtVerificationKeys: [2] } },
      stage: 'staging',
    } as Record<string, unknown>;
    expect(stackSettings((key) => block[key]).jwtKeys).toEqual({ signing: 1, verification: [2] });
    expect(stackSettings(() => undefined).jwtKeys).toBeUndefined();
    expect(() => stackSettings((key) => ({ jwtSigningKey: 'next' })[key])).toThrow(
      'jwtSigningKey: a key generation',
    );
    expect(() => stackSettings((key) => ({ jwtVerificationKeys: '1,0' })[key])).toThrow(
      'jwtVerificationKeys',
    );
  });
});
