import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { groups, routesOf } from '../../functions/groups';
import { stackSettings } from '../../infra/settings';
import { PlatformStack, type PlatformStackProps } from '../../infra/stack';

/**
 * What the first production deployment needs to keep running for a month and a year (issue 37): the committed
 * `prod` and `dev` blocks of cdk.json synthesised as `cdk deploy -c stage=<stage>` reads them, and checked here.
 */

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };

const cdkJson = JSON.parse(readFileSync('cdk.json', 'utf8')) as { context: Record<string, any> };
const prodBlock = cdkJson.context.stages.prod as Record<string, unknown>;

/** The settings of a stage exactly as `cdk deploy -c stage=<stage>` reads them from the committed cdk.json. */
function committed(stage: string, extra: Record<string, unknown> = {}) {
  return stackSettings((key) => (key === 'stage' ? stage : (extra[key] ?? cdkJson.context[key])));
}

function synth(props: PlatformStackProps, id = 'Stage') {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PlatformStack(app, id, props);
  return { stack, template: Template.fromStack(stack) };
}

let prod: { stack: PlatformStack; template: Template };
let dev: { stack: PlatformStack; template: Template };

beforeAll(() => {
  prod = synth(committed('prod'), 'Prod');
  dev = synth(committed('dev'), 'Dev');
}, 240_000);

const resources = (template: Template) => template.toJSON().Resources as Record<string, Resource>;
const ofType = (template: Template, type: string) =>
  Object.entries(resources(template)).filter(([, r]) => r.Type === type);
const groupFunction = (template: Template, name: keyof typeof groups) => {
  const found = ofType(template, 'AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties.Description === groups[name].description,
  );
  if (!found) throw new Error(`no ${name} function`);
  return found[1];
};
const deploying = readFileSync('docs/deploying.md', 'utf8');

describe('3. prod pins its account and region, and its domain is the only way in', () => {
  it('deploys prod to the account and region pinned in cdk.json, whoever deploys it', () => {
    expect(prodBlock.account).toMatch(/^\d{12}$/);
    expect(prodBlock.region).toBeTruthy();
    expect(committed('prod').env).toEqual({ account: prodBlock.account, region: prodBlock.region });
    expect(prod.stack.account).toBe(prodBlock.account);
    expect(prod.stack.region).toBe(prodBlock.region);
    // bin/app.ts passes the pinned environment, not the deployer's default.
    expect(readFileSync('bin/app.ts', 'utf8')).toMatch(/settings\.env \?\?/);
  });

  it('pins the availability-zone lookup of that account and region in cdk.context.json (synth needs no credentials)', () => {
    const lookups = JSON.parse(readFileSync('cdk.context.json', 'utf8')) as Record<string, unknown>;
    const zones = lookups[`availability-zones:account=${prodBlock.account}:region=${prodBlock.region}`];
    expect(Array.isArray(zones) && zones.length >= 2).toBe(true);
  });

  it('refuses a production block without account or region', () => {
    const without = Object.fromEntries(Object.entries(prodBlock).filter(([key]) => key !== 'region'));
    expect(() =>
      stackSettings((key) => (key === 'stage' ? 'prod' : key === 'stages' ? { prod: without } : undefined)),
    ).toThrow(/account and region/);
  });

  it('refuses to synthesise when the certificate is in another region than the stack', () => {
    expect(() =>
      synth(
        {
          env: { account: '111111111111', region: 'us-east-1' },
          domain: {
            name: 'api.example.com',
            certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/x',
          },
        },
        'Elsewhere',
      ),
    ).toThrow(/certificateArn is in eu-west-1 but the stack is deployed to us-east-1/);
  });

  it('gives an environment-agnostic stack with a domain a template rule on the region', () => {
    const { template } = synth(
      {
        domain: {
          name: 'api.example.com',
          certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/x',
        },
      },
      'Agnostic',
    );
    const rule = JSON.stringify(template.toJSON().Rules?.CertificateRegion ?? {});
    expect(rule).toContain('AWS::Region');
    expect(rule).toContain('eu-west-1');
  });

  it('disables the execute-api endpoint when a custom domain is set, and only then', () => {
    const [[, prodApi]] = ofType(prod.template, 'AWS::ApiGatewayV2::Api') as [[string, Resource]];
    expect(prodApi.Properties.DisableExecuteApiEndpoint).toBe(true);
    const [[, devApi]] = ofType(dev.template, 'AWS::ApiGatewayV2::Api') as [[string, Resource]];
    expect(devApi.Properties.DisableExecuteApiEndpoint ?? false).toBe(false);
  });
});

describe('5. at most one deletion sweep at a time', () => {
  const sweeper = (template: Template) => {
    const found = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
      String(fn.Properties.Description).startsWith('Finishes pending deletions'),
    );
    if (!found) throw new Error('no sweeper');
    return found;
  };

  it.each(['dev', 'prod'])('reserves a concurrency of 1 for the sweeper in %s', (stage) => {
    const { template } = stage === 'prod' ? prod : dev;
    const [id, fn] = sweeper(template);
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(1);
    // A throttled asynchronous invocation (a hand-off during a sweep) is kept and retried within one schedule
    // period; a failed sweep is not retried (the schedule is the retry).
    const [[, config]] = ofType(template, 'AWS::Lambda::EventInvokeConfig').filter(
      ([, c]) => c.Properties.FunctionName.Ref === id,
    ) as [[string, Resource]];
    expect(config.Properties).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 });
  });

  it('refuses reservations that leave fewer than 100 of the account unreserved (the sweeper counted)', () => {
    const context = (values: Record<string, unknown>) => (key: string) => values[key];
    expect(() =>
      stackSettings(context({ accountConcurrency: 200, reservedConcurrency: { data: 100 } })),
    ).toThrow(/101 reserved .* leaves 99/);
    expect(() =>
      stackSettings(context({ accountConcurrency: 200, reservedConcurrency: { data: 99 } })),
    ).not.toThrow();
    // The committed prod reservations fit the prod quota.
    expect(() => committed('prod')).not.toThrow();
  });
});

describe('6. backups line up', () => {
  it('keeps 35 days of Aurora backups and of DynamoDB point-in-time recovery in prod', () => {
    const [[, cluster]] = ofType(prod.template, 'AWS::RDS::DBCluster') as [[string, Resource]];
    expect(cluster.Properties.BackupRetentionPeriod).toBe(35);
    const [[, table]] = ofType(prod.template, 'AWS::DynamoDB::GlobalTable') as [[string, Resource]];
    expect(JSON.stringify(table.Properties)).toContain('"RecoveryPeriodInDays":35');
  });

  it('keeps the two windows equal in dev too (7 days)', () => {
    const [[, cluster]] = ofType(dev.template, 'AWS::RDS::DBCluster') as [[string, Resource]];
    expect(cluster.Properties.BackupRetentionPeriod).toBe(7);
    const [[, table]] = ofType(dev.template, 'AWS::DynamoDB::GlobalTable') as [[string, Resource]];
    expect(JSON.stringify(table.Properties)).toContain('"RecoveryPeriodInDays":7');
    expect(ofType(dev.template, 'AWS::Backup::BackupPlan')).toHaveLength(0);
  });

  it('backs both stores up daily with AWS Backup in prod, with a copy to a second vault', () => {
    const [[, plan]] = ofType(prod.template, 'AWS::Backup::BackupPlan') as [[string, Resource]];
    const [rule] = plan.Properties.BackupPlan.BackupPlanRule;
    expect(rule.Lifecycle.DeleteAfterDays).toBe(35);
    expect(rule.CopyActions).toHaveLength(1);
    expect(rule.CopyActions[0].Lifecycle.DeleteAfterDays).toBe(35);
    const vaults = ofType(prod.template, 'AWS::Backup::BackupVault').map(([id]) => id);
    expect(vaults).toHaveLength(2);
    const target = JSON.stringify(rule.TargetBackupVault);
    const copy = JSON.stringify(rule.CopyActions[0].DestinationBackupVaultArn);
    expect(vaults.filter((id) => target.includes(id))).toHaveLength(1);
    expect(vaults.filter((id) => copy.includes(id) && !target.includes(id))).toHaveLength(1);
    const [[, selection]] = ofType(prod.template, 'AWS::Backup::BackupSelection') as [[string, Resource]];
    const selected = JSON.stringify(selection.Properties.BackupSelection.Resources);
    const tableId = ofType(prod.template, 'AWS::DynamoDB::GlobalTable')[0]?.[0];
    const clusterId = ofType(prod.template, 'AWS::RDS::DBCluster')[0]?.[0];
    expect(selected).toContain(tableId);
    expect(selected).toContain(clusterId);
  });

  it('copies to another account’s vault when the settings name one', () => {
    const other = 'arn:aws:backup:eu-west-1:222222222222:backup-vault:platform-copies';
    const settings = stackSettings((key) =>
      key === 'stage'
        ? 'prod'
        : key === 'stages'
          ? { prod: { ...prodBlock, backupCopyVaultArn: other } }
          : cdkJson.context[key],
    );
    const copied = synth(settings, 'CopyElsewhere').template;
    const [[, plan]] = ofType(copied, 'AWS::Backup::BackupPlan') as [[string, Resource]];
    expect(plan.Properties.BackupPlan.BackupPlanRule[0].CopyActions[0].DestinationBackupVaultArn).toBe(other);
    expect(ofType(copied, 'AWS::Backup::BackupVault')).toHaveLength(1);
  }, 120_000);
});

describe('7. every log group expires', () => {
  it.each([
    ['prod', 365],
    ['dev', 30],
  ])('gives every log group of %s a retention of %i days', (stage, days) => {
    const { template } = stage === 'prod' ? prod : dev;
    const logGroups = ofType(template, 'AWS::Logs::LogGroup');
    expect(logGroups.length).toBeGreaterThan(10);
    for (const [id, group] of logGroups) expect(group.Properties.RetentionInDays, id).toBe(days);
  });

  it.each(['prod', 'dev'])('points every function of %s at a log group the stack creates', (stage) => {
    const { template } = stage === 'prod' ? prod : dev;
    const all = resources(template);
    for (const [id, fn] of ofType(template, 'AWS::Lambda::Function')) {
      const logGroup = fn.Properties.LoggingConfig?.LogGroup;
      expect(logGroup, id).toBeDefined();
      expect(all[logGroup.Ref]?.Type, id).toBe('AWS::Logs::LogGroup');
      // Created before the function, so Lambda never creates it without a retention.
      expect(JSON.stringify(fn.DependsOn ?? []) + JSON.stringify(fn.Properties), id).toContain(logGroup.Ref);
    }
  });

  it('creates the rotation functions’ log groups before their applications', () => {
    const all = resources(prod.template);
    const named = new Map(
      ofType(prod.template, 'AWS::Logs::LogGroup').map(([id, group]) => [group.Properties.LogGroupName, id]),
    );
    const applications = ofType(prod.template, 'AWS::Serverless::Application');
    expect(applications).toHaveLength(2);
    for (const [id, application] of applications) {
      const name = application.Properties.Parameters.functionName;
      const logGroup = named.get(`/aws/lambda/${name}`);
      expect(logGroup, id).toBeDefined();
      expect(all[id]?.DependsOn, id).toContain(logGroup);
    }
  });
});

describe('8. alarms page on rates over several periods, and on what matters', () => {
  const alarms = () => ofType(prod.template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const find = (text: RegExp) => {
    const found = alarms().filter((alarm) => text.test(JSON.stringify(alarm)));
    expect(found.length, String(text)).toBeGreaterThan(0);
    return found;
  };

  it('judges function errors and throttles as a share of invocations over three periods', () => {
    const rates = alarms().filter((alarm) =>
      /function errors above|throttled above/.test(alarm.AlarmDescription),
    );
    // Every group's function, both alarms.
    expect(rates).toHaveLength(2 * prod.stack.functions.size);
    for (const alarm of rates) {
      expect(alarm.EvaluationPeriods).toBe(3);
      expect(alarm.DatapointsToAlarm).toBe(3);
      expect(JSON.stringify(alarm.Metrics)).toMatch(/Invocations/);
    }
  });

  it('alarms on a single event only for the deploy-time and rotation steps', () => {
    const single = alarms().filter((alarm) => alarm.EvaluationPeriods === 1);
    for (const alarm of single) expect(alarm.AlarmDescription).toMatch(/migration step|rotation failed/);
  });

  it('watches pinned proxy sessions, account and unreserved concurrency, KMS Sign against its quota, DynamoDB system errors and the sweeper’s duration', () => {
    find(/DatabaseConnectionsCurrentlySessionPinned/);
    const account = find(/"ConcurrentExecutions"/)[0];
    expect(account?.Threshold).toBe(800);
    const unreserved = find(/UnreservedConcurrentExecutions/)[0];
    const reserved = Object.values(prodBlock.reservedConcurrency as Record<string, number>).reduce(
      (a, b) => a + b,
      1,
    );
    expect(unreserved?.Threshold).toBe(((1000 - reserved) * 80) / 100);
    const kms = find(/AWS\/Usage.*Sign|Sign.*AWS\/Usage/)[0];
    expect(JSON.stringify(kms?.Metrics)).toContain('/ 300');
    const raised = synth({ kmsEccQuota: 1000 }, 'Raised').template;
    expect(JSON.stringify(raised.toJSON())).toContain('(signs / 60) / 1000');
    expect(find(/SystemErrors/)[0]?.Metrics.length).toBeGreaterThan(5);
    const duration = find(/"Duration"/)[0];
    expect(duration?.Threshold).toBe(0.9 * 300_000);
  });

  it('has a line in docs/deploying.md for every alarm, saying what to do', () => {
    const groupNames = [...prod.stack.functions.keys()];
    const ids = new Set(
      prod.stack.observability.alarms.map((alarm) => {
        const id = alarm.node.id;
        const group = groupNames.find((name) => id.startsWith(name) && /^[A-Z]/.test(id.slice(name.length)));
        return group ? `<group>${id.slice(group.length)}` : id;
      }),
    );
    expect(ids.size).toBeGreaterThan(15);
    // A row of the alarms table names it in its first column.
    for (const id of ids)
      expect(deploying, id).toMatch(new RegExp(`^\\| [^|]*\`${id.replace(/[<>]/g, '.')}\``, 'm'));
  });
});

describe('10. the platform’s groups keep their concurrency in prod', () => {
  it('reserves concurrency for every group of the committed prod block', () => {
    for (const [name, group] of Object.entries(groups)) {
      if (routesOf(group.name).length === 0) continue;
      const fn = groupFunction(prod.template, name as keyof typeof groups);
      expect(fn.Properties.ReservedConcurrentExecutions, name).toBeGreaterThan(0);
    }
  });

  it('documents the resource policy a tenant function of another account needs', () => {
    expect(deploying).toMatch(/aws lambda add-permission/);
    expect(deploying).toMatch(/eventFunctionAccount/);
  });
});

describe('11. Aurora in prod', () => {
  it('pins the capacity, adds a reader in promotion tier 1, and turns on Performance Insights', () => {
    const [[, cluster]] = ofType(prod.template, 'AWS::RDS::DBCluster') as [[string, Resource]];
    expect(cluster.Properties.ServerlessV2ScalingConfiguration).toEqual({
      MinCapacity: prodBlock.databaseMinCapacity,
      MaxCapacity: prodBlock.databaseMaxCapacity,
    });
    const instances = ofType(prod.template, 'AWS::RDS::DBInstance').map(([, i]) => i.Properties);
    expect(instances).toHaveLength(2);
    expect(instances.map((i) => i.PromotionTier ?? 0).sort()).toEqual([0, 1]);
    expect(JSON.stringify([cluster.Properties, instances])).toMatch(
      /"(Enable)?PerformanceInsights(Enabled)?":true/,
    );
    // dev keeps a single writer.
    expect(ofType(dev.template, 'AWS::RDS::DBInstance')).toHaveLength(1);
  });

  it('gives the cluster a parameter group that logs slow statements and ends idle transactions', () => {
    const [[id, group]] = ofType(prod.template, 'AWS::RDS::DBClusterParameterGroup') as [[string, Resource]];
    expect(group.Properties.Parameters).toMatchObject({
      log_min_duration_statement: expect.any(String),
      idle_in_transaction_session_timeout: expect.any(String),
    });
    const [[, cluster]] = ofType(prod.template, 'AWS::RDS::DBCluster') as [[string, Resource]];
    expect(cluster.Properties.DBClusterParameterGroupName).toEqual({ Ref: id });
  });
});

describe('12. the newest Node.js runtime, without source maps in prod', () => {
  it.each(['prod', 'dev'])('runs every function of %s on nodejs24.x', (stage) => {
    const { template } = stage === 'prod' ? prod : dev;
    for (const [id, fn] of ofType(template, 'AWS::Lambda::Function'))
      expect(fn.Properties.Runtime, id).toBe('nodejs24.x');
  });

  it('drops --enable-source-maps in prod and keeps it in dev', () => {
    expect(
      groupFunction(prod.template, 'auth').Properties.Environment.Variables.NODE_OPTIONS,
    ).toBeUndefined();
    expect(groupFunction(dev.template, 'auth').Properties.Environment.Variables.NODE_OPTIONS).toBe(
      '--enable-source-maps',
    );
  });
});

describe('13. the accounts function is out of the VPC, and the VPC has two interface endpoints', () => {
  it.each(['prod', 'dev'])('gives the accounts function of %s no VPC and no database login', (stage) => {
    const { template } = stage === 'prod' ? prod : dev;
    const accounts = groupFunction(template, 'accounts');
    expect(accounts.Properties.VpcConfig).toBeUndefined();
    expect(accounts.Properties.Environment.Variables.DATABASE_HOST).toBeUndefined();
    expect(accounts.Properties.Environment.Variables.DELETION_SWEEPER_FUNCTION).toBeDefined();
    expect(groupFunction(template, 'data').Properties.VpcConfig).toBeDefined();
  });

  it('has interface endpoints for KMS and Secrets Manager only (and the DynamoDB gateway)', () => {
    const endpoints = ofType(prod.template, 'AWS::EC2::VPCEndpoint').map(([, e]) => ({
      type: e.Properties.VpcEndpointType ?? 'Gateway',
      service: JSON.stringify(e.Properties.ServiceName),
    }));
    const interfaces = endpoints.filter((e) => e.type === 'Interface').map((e) => e.service);
    expect(interfaces).toHaveLength(2);
    expect(interfaces.some((s) => s.includes('.kms'))).toBe(true);
    expect(interfaces.some((s) => s.includes('.secretsmanager'))).toBe(true);
    expect(endpoints.filter((e) => e.type === 'Gateway').map((e) => e.service)).toEqual([
      expect.stringContaining('.dynamodb'),
    ]);
  });

  it('has an itemized idle-cost table per stage in docs/deploying.md', () => {
    expect(deploying).toMatch(/\| item \| dev \| prod \|/);
    for (const item of ['KMS', 'Secrets Manager', 'Interface VPC endpoints', 'RDS Proxy', 'AWS Backup'])
      expect(deploying).toContain(item);
  });
});
