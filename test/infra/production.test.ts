import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { groups } from '../../functions/groups';
import { clusterIdentifier, healthUser, loginUser } from '../../infra/data-plane';
import { retriedLambdaErrors } from '../../infra/events';
import { stackSettings } from '../../infra/settings';
import { PlatformStack } from '../../infra/stack';

/**
 * What a first production deployment needs from the template (docs/deploying.md): the database login survives its
 * rotation, alarms can reach someone, production settings are pinned, meta and the secrets key hold no more than
 * they need, the user-creation hook stays inside the API's limit, and the migration step is traced and careful.
 */

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };

let template: Template;
let stack: PlatformStack;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new PlatformStack(app, 'Prod', {
    env: { account: '111111111111', region: 'eu-west-1' },
    alarmEmail: 'ops@example.com',
  });
  template = Template.fromStack(stack);
}, 240_000);

const all = () => template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(all()).filter(([, r]) => r.Type === type);
const groupFunction = (name: string) => {
  const found = ofType('AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties.Description === groups[name as keyof typeof groups].description,
  );
  if (!found) throw new Error(`no ${name} function`);
  return found;
};
const policyOf = (functionId: string) => {
  const roleId = all()[functionId]?.Properties.Role['Fn::GetAtt'][0];
  const policies = ofType('AWS::IAM::Policy').filter(([, p]) =>
    p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId),
  );
  return policies.flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[]);
};
const actionsOf = (statement: Record<string, any>) =>
  ([] as string[]).concat(statement.Action as string | string[]);

describe('1. the database login survives its rotation', () => {
  it('rotates the login with single-user rotation, so the secret keeps naming platform_app', () => {
    const applications = ofType('AWS::Serverless::Application');
    const mappings = JSON.stringify(template.toJSON().Mappings ?? {});
    expect(mappings).not.toContain('RotationMultiUser');
    expect(mappings).toContain('SecretsManagerRDSPostgreSQLRotationSingleUser');
    // The master's rotation and the login's.
    expect(applications).toHaveLength(2);
    const secrets = ofType('AWS::SecretsManager::Secret').map(([, s]) => JSON.stringify(s.Properties));
    expect(secrets.filter((s) => s.includes(`\\"username\\":\\"${loginUser}\\"`))).toHaveLength(1);
  });

  it('configures the SQL functions with the user the login secret names', () => {
    const [, data] = groupFunction('data');
    expect(data.Properties.Environment.Variables.DATABASE_USER).toBe(loginUser);
  });
});

describe('2. alarms reach someone', () => {
  it('encrypts the alarm topic with a key of its own whose policy lets CloudWatch alarms of this account use it', () => {
    const [topic] = ofType('AWS::SNS::Topic');
    const keyRef = topic?.[1].Properties.KmsMasterKeyId;
    expect(keyRef).not.toBe('alias/aws/sns');
    const keyId = keyRef?.['Fn::GetAtt']?.[0] ?? keyRef?.Ref;
    const key = all()[keyId];
    expect(key?.Type).toBe('AWS::KMS::Key');
    expect(key?.Properties.EnableKeyRotation).toBe(true);
    const statements = key?.Properties.KeyPolicy.Statement as Record<string, any>[];
    const cloudwatch = statements.find((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com');
    expect(cloudwatch).toBeDefined();
    expect(actionsOf(cloudwatch ?? {}).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    expect(cloudwatch?.Condition.StringEquals['aws:SourceAccount']).toBe('111111111111');
    expect(cloudwatch?.Condition.ArnLike['aws:SourceArn']).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:eu-west-1:111111111111:alarm:*']],
    });
  });

  it('alarms on the state machine, the migration step, the secret rotations and the proxy connections', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const on = (namespace: string, metric: string) =>
      alarms.filter((a) => a.Namespace === namespace && a.MetricName === metric);
    // A share of the executions started (metric math), not a single event.
    const metricsOf = (name: string) =>
      alarms.filter((a) => JSON.stringify(a.Metrics ?? []).includes(`"MetricName":"${name}"`));
    expect(metricsOf('ExecutionsFailed')).toHaveLength(1);
    expect(metricsOf('ExecutionsTimedOut')).toHaveLength(1);
    expect(JSON.stringify(metricsOf('ExecutionsFailed')[0]?.Metrics)).toContain('ExecutionsStarted');
    expect(on('AWS/RDS', 'ClientConnectionsSetupFailedAuth')).toHaveLength(1);
    expect(on('AWS/RDS', 'DatabaseConnectionsSetupFailed')).toHaveLength(1);
    const errors = on('AWS/Lambda', 'Errors').map((a) => JSON.stringify(a.Dimensions));
    const migration = stack.getLogicalId(stack.migration?.function.node.defaultChild as never);
    expect(errors.some((d) => d.includes(migration))).toBe(true);
    for (const name of stack.dataPlane?.rotationFunctionNames ?? []) {
      expect(errors.some((d) => d.includes(name))).toBe(true);
    }
    expect(stack.dataPlane?.rotationFunctionNames).toHaveLength(2);
    for (const alarm of alarms) expect(alarm.AlarmActions).toHaveLength(1);
  });
});

describe('3. production settings are pinned', () => {
  const cdkJson = JSON.parse(readFileSync('cdk.json', 'utf8')) as { context: Record<string, unknown> };
  const context =
    (extra: Record<string, unknown> = {}, block?: Record<string, unknown>) =>
    (key: string) => {
      const base: Record<string, unknown> = { ...cdkJson.context, stage: 'prod', ...extra };
      if (block) base.stages = { prod: block };
      return base[key];
    };
  const prodBlock = (cdkJson.context.stages as Record<string, Record<string, unknown>>).prod ?? {};

  it('reads the domain, issuer, alarm e-mail and CORS origins of prod from cdk.json alone', () => {
    const settings = stackSettings(context());
    expect(settings.domain?.name).toBeTruthy();
    expect(settings.alarmEmail).toMatch(/@/);
    expect(settings.corsOrigins?.length).toBeGreaterThan(0);
    expect(settings.deletionProtection).toBe(true);
  });

  it('refuses to synthesise prod without an issuer or domain, an alarm e-mail or explicit CORS origins', () => {
    const without = (...keys: string[]) =>
      Object.fromEntries(Object.entries(prodBlock).filter(([key]) => !keys.includes(key)));
    expect(() => stackSettings(context({}, without('domainName', 'certificateArn', 'issuer')))).toThrow(
      /issuer or domainName/,
    );
    expect(() => stackSettings(context({}, without('alarmEmail')))).toThrow(/alarmEmail/);
    expect(() => stackSettings(context({}, without('corsOrigins')))).toThrow(/corsOrigins/);
  });

  it('refuses a command-line value that differs from a pinned production setting', () => {
    expect(() => stackSettings(context({ domainName: 'other.example.com' }))).toThrow(/pinned/);
  });

  it('keeps the default stage synthesising with nothing set', () => {
    expect(() => stackSettings(context({ stage: 'dev' }))).not.toThrow();
  });
});

describe('5. meta and the secrets key hold only what they need', () => {
  it('lets the meta function describe the table and nothing else of it', () => {
    const [metaId] = groupFunction('meta');
    const dynamo = policyOf(metaId).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.flatMap(actionsOf)).toEqual(['dynamodb:DescribeTable']);
  });

  it('gives the meta function the read-only health login, never the login that owns the schemas', () => {
    const [metaId, meta] = groupFunction('meta');
    expect(meta.Properties.Environment.Variables.DATABASE_USER).toBe(healthUser);
    const secretReads = JSON.stringify(
      policyOf(metaId).filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue')),
    );
    const login = stack.getLogicalId(stack.dataPlane?.loginSecret.node.defaultChild as never);
    const health = stack.getLogicalId(stack.dataPlane?.healthSecret.node.defaultChild as never);
    expect(secretReads).not.toContain(login);
    expect(secretReads).toContain(health);
  });

  it("binds auth's use of the secrets key to the social apps' and TOTP secrets' contexts, events' to the webhooks', and the secret store's to every other", () => {
    const kms = (group: string) =>
      policyOf(groupFunction(group)[0]).filter((s) => actionsOf(s).includes('kms:Decrypt'));
    const [auth] = kms('auth');
    const [secrets] = kms('secrets');
    const [events] = kms('events');
    expect(auth?.Condition.StringEquals['kms:EncryptionContext:app']).toEqual(['~social', '~mfa']);
    expect(events?.Condition.StringEquals['kms:EncryptionContext:app']).toBe('~webhooks');
    expect(secrets?.Condition.StringNotEquals['kms:EncryptionContext:app']).toEqual([
      '~social',
      '~mfa',
      '~webhooks',
    ]);
  });
});

describe('6. the user-creation hook retries Lambda hiccups and stays inside the API limit', () => {
  const definition = () => {
    const [[, machine] = []] = ofType('AWS::StepFunctions::StateMachine');
    const raw = machine?.Properties.DefinitionString;
    return JSON.parse(typeof raw === 'string' ? raw : JSON.stringify(raw));
  };

  it('retries service errors and throttling with back-off', () => {
    const invoke = definition().States.Subscribers.ItemProcessor.States.InvokeSubscriber;
    expect(invoke.Retry).toEqual([
      expect.objectContaining({ ErrorEquals: [...retriedLambdaErrors], BackoffRate: 2, MaxAttempts: 2 }),
    ]);
    expect(retriedLambdaErrors).toEqual([
      'Lambda.ServiceException',
      'Lambda.AWSLambdaException',
      'Lambda.SdkClientException',
      'Lambda.TooManyRequestsException',
    ]);
  });

  it('times the whole execution out after EVENT_FUNCTION_TIMEOUT_SECONDS (default 10), under the 29 s API', () => {
    const body = definition();
    expect(body.TimeoutSeconds).toBe(10);
    expect(body.States.Subscribers.ItemProcessor.States.InvokeSubscriber.TimeoutSeconds).toBeLessThanOrEqual(
      10,
    );
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new PlatformStack(app, 'TooLong', { userCreationHookTimeoutSeconds: 26 })).toThrow(
      /EVENT_FUNCTION_TIMEOUT_SECONDS/,
    );
  });
});

describe('7. the migration step is traced and the cluster logs need no helper function', () => {
  it('traces the migration function and gives it a lock timeout', () => {
    const migration = stack.getLogicalId(stack.migration?.function.node.defaultChild as never);
    const fn = all()[migration];
    expect(fn?.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    expect(Number(fn?.Properties.Environment.Variables.MIGRATION_LOCK_TIMEOUT_MS)).toBeGreaterThan(0);
  });

  it("creates the cluster's PostgreSQL log group itself, for a fixed cluster identifier", () => {
    template.hasResourceProperties('AWS::RDS::DBCluster', { DBClusterIdentifier: clusterIdentifier('Prod') });
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: `/aws/rds/cluster/${clusterIdentifier('Prod')}/postgresql`,
    });
    template.resourceCountIs('Custom::LogRetention', 0);
  });
});
