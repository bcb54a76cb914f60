import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { groups } from '../../functions/groups';
import { PlatformStack } from '../../infra/stack';

let template: Template;

beforeAll(() => {
  // Skip esbuild bundling of the function assets: the template is what these tests check.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  template = Template.fromStack(new PlatformStack(app, 'Test', { deletionProtection: true }));
});

type Resource = { Type: string; Properties: Record<string, any> };

function resources(type: string): [string, Resource][] {
  return Object.entries(template.findResources(type)) as [string, Resource][];
}

function logicalId(type: string, description: string): string {
  const found = resources(type).find(([, resource]) =>
    resource.Properties.GroupDescription?.startsWith(description),
  );
  if (!found) throw new Error(`no ${type} described "${description}"`);
  return found[0];
}

const groupId = (id: string) => ({ 'Fn::GetAtt': [id, 'GroupId'] });

describe('DataPlane', () => {
  it('runs Aurora PostgreSQL 16 Serverless v2, encrypted and protected, in a private subnet group', () => {
    template.hasResourceProperties('AWS::RDS::DBCluster', {
      Engine: 'aurora-postgresql',
      EngineVersion: Match.stringLikeRegexp('^16\\.'),
      ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 4 },
      StorageEncrypted: true,
      DeletionProtection: true,
      DatabaseName: 'platform',
    });
    template.hasResourceProperties('AWS::RDS::DBInstance', {
      DBInstanceClass: 'db.serverless',
      PubliclyAccessible: false,
    });
    template.hasResource('AWS::RDS::DBCluster', { DeletionPolicy: 'Snapshot' });
  });

  it('keeps the credentials in Secrets Manager, never in the template', () => {
    // The master user's, the functions' login role's and the health check's read-only login's.
    template.resourceCountIs('AWS::SecretsManager::Secret', 3);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ GenerateStringKey: 'password' }),
    });
    const [[, cluster]] = resources('AWS::RDS::DBCluster') as [[string, Resource]];
    expect(JSON.stringify(cluster.Properties.MasterUserPassword)).toContain('{{resolve:secretsmanager:');
  });

  it('puts an RDS Proxy in front, authenticating with the secret and requiring TLS', () => {
    template.hasResourceProperties('AWS::RDS::DBProxy', {
      EngineFamily: 'POSTGRESQL',
      RequireTLS: true,
      Auth: [
        Match.objectLike({ AuthScheme: 'SECRETS' }),
        Match.objectLike({ AuthScheme: 'SECRETS' }),
        Match.objectLike({ AuthScheme: 'SECRETS' }),
      ],
    });
    template.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', {
      DBClusterIdentifiers: Match.anyValue(),
    });
  });

  it('uses a VPC of isolated subnets only: no internet or NAT gateway', () => {
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    const subnets = resources('AWS::EC2::Subnet');
    expect(subnets.length).toBeGreaterThanOrEqual(2);
    for (const [, subnet] of subnets) {
      expect(subnet.Properties.MapPublicIpOnLaunch).toBe(false);
      expect(subnet.Properties.Tags).toContainEqual({ Key: 'aws-cdk:subnet-type', Value: 'Isolated' });
    }
  });

  it('reaches DynamoDB, KMS and Secrets Manager through VPC endpoints, and nothing else', () => {
    const services = resources('AWS::EC2::VPCEndpoint').map(([, endpoint]) =>
      JSON.stringify(endpoint.Properties.ServiceName),
    );
    expect(services.some((name) => name.includes('.dynamodb'))).toBe(true);
    expect(services.some((name) => name.includes('.kms'))).toBe(true);
    expect(services.some((name) => name.includes('.secretsmanager'))).toBe(true);
    // No function in the VPC creates users or invokes one: the accounts function left it (the deletion sweeper
    // runs the deletions' SQL), and with it the Step Functions and Lambda endpoints.
    expect(services.some((name) => name.includes('.sync-states'))).toBe(false);
    expect(services.some((name) => name.includes('.lambda'))).toBe(false);
    expect(services).toHaveLength(3);
  });

  it('lets the database accept connections from the proxy and the secret rotation only', () => {
    const database = logicalId('AWS::EC2::SecurityGroup', 'Aurora PostgreSQL');
    const proxy = logicalId('AWS::EC2::SecurityGroup', 'RDS Proxy');
    const rotation = logicalId('AWS::EC2::SecurityGroup', 'Secret rotation');
    const [[, group]] = resources('AWS::EC2::SecurityGroup').filter(([id]) => id === database) as [
      [string, Resource],
    ];
    expect(group.Properties.SecurityGroupIngress).toBeUndefined();
    const ingress = resources('AWS::EC2::SecurityGroupIngress').filter(
      ([, rule]) => JSON.stringify(rule.Properties.GroupId) === JSON.stringify(groupId(database)),
    );
    expect(ingress.length).toBeGreaterThan(0);
    for (const [, rule] of ingress) {
      expect([groupId(proxy), groupId(rotation)]).toContainEqual(rule.Properties.SourceSecurityGroupId);
    }
  });

  it('lets the proxy accept connections from the SQL functions only', () => {
    const proxy = logicalId('AWS::EC2::SecurityGroup', 'RDS Proxy');
    const functions = logicalId('AWS::EC2::SecurityGroup', 'Functions that use SQL');
    const ingress = resources('AWS::EC2::SecurityGroupIngress').filter(
      ([, rule]) => JSON.stringify(rule.Properties.GroupId) === JSON.stringify(groupId(proxy)),
    );
    expect(
      ingress.map(([, rule]) => [rule.Properties.SourceSecurityGroupId, rule.Properties.FromPort]),
    ).toEqual([[groupId(functions), 5432]]);
  });

  it('lets the SQL functions open PostgreSQL connections to the proxy and nothing else but HTTPS', () => {
    const proxy = logicalId('AWS::EC2::SecurityGroup', 'RDS Proxy');
    const functions = logicalId('AWS::EC2::SecurityGroup', 'Functions that use SQL');
    const [[, group]] = resources('AWS::EC2::SecurityGroup').filter(([id]) => id === functions) as [
      [string, Resource],
    ];
    expect(group.Properties.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443 }),
    ]);
    const egress = resources('AWS::EC2::SecurityGroupEgress').filter(
      ([, rule]) => JSON.stringify(rule.Properties.GroupId) === JSON.stringify(groupId(functions)),
    );
    expect(
      egress.map(([, rule]) => [rule.Properties.DestinationSecurityGroupId, rule.Properties.FromPort]),
    ).toEqual([[groupId(proxy), 5432]]);
  });

  it('runs every group that uses SQL in the VPC with the proxy address and the secret, and no other group', () => {
    const functions = logicalId('AWS::EC2::SecurityGroup', 'Functions that use SQL');
    for (const group of Object.values(groups)) {
      const [found] = resources('AWS::Lambda::Function').filter(
        ([, fn]) => fn.Properties.Description === group.description,
      );
      if (!found) continue;
      const [, fn] = found;
      if (group.needs.sql) {
        expect(fn.Properties.VpcConfig.SecurityGroupIds).toEqual([groupId(functions)]);
        expect(fn.Properties.VpcConfig.SubnetIds.length).toBeGreaterThanOrEqual(2);
        expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
          expect.arrayContaining([
            'DATABASE_HOST',
            'DATABASE_PORT',
            'DATABASE_NAME',
            'DATABASE_USER',
            'DATABASE_SECRET_ARN',
          ]),
        );
      } else {
        expect(fn.Properties.VpcConfig).toBeUndefined();
        expect(fn.Properties.Environment.Variables.DATABASE_SECRET_ARN).toBeUndefined();
      }
    }
    expect(Object.values(groups).some((group) => group.needs.sql)).toBe(true);
  });

  it('lets the SQL functions read the login secret only, and only the migration step read the master secret', () => {
    const policies = resources('AWS::IAM::Policy');
    const readers = (secret: RegExp) =>
      policies
        .filter(([, policy]) =>
          (policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]).some(
            (statement) =>
              JSON.stringify(statement.Action).includes('secretsmanager:GetSecretValue') &&
              secret.test(JSON.stringify(statement.Resource)),
          ),
        )
        .map(([, policy]) => JSON.stringify(policy.Properties.Roles));
    const login = readers(/LoginSecret/);
    const master = readers(/ClusterSecretAttachment/);
    for (const role of ['DataRole', 'MigrationRole']) expect(login.join()).toContain(role);
    // Meta (the health check) reads its own read-only login, never the one that owns the site schemas.
    expect(login.join()).not.toContain('MetaRole');
    expect(readers(/HealthSecret/).join()).toContain('MetaRole');
    expect(master.filter((roles) => !roles.includes('ProxyIAMRole'))).toEqual([
      expect.stringContaining('MigrationRole'),
    ]);
    const sqlFunctions = resources('AWS::Lambda::Function').filter(([, fn]) =>
      Object.values(groups).some(
        (group) => group.needs.sql && group.description === fn.Properties.Description,
      ),
    );
    for (const [, fn] of sqlFunctions) {
      const meta = fn.Properties.Description === groups.meta.description;
      expect(fn.Properties.Environment.Variables.DATABASE_USER).toBe(
        meta ? 'platform_health' : 'platform_app',
      );
      expect(JSON.stringify(fn.Properties.Environment.Variables.DATABASE_SECRET_ARN)).toContain(
        meta ? 'HealthSecret' : 'LoginSecret',
      );
      expect(fn.Properties.Environment.Variables.DATABASE_SSL).toBe('verify-full');
    }
  });

  it('runs the migration step at deploy time: after the proxy, before the SQL functions, before the login rotation', () => {
    const [[triggerId, trigger]] = resources('Custom::Trigger') as [
      [string, Resource & { DependsOn: string[] }],
    ];
    expect(trigger.DependsOn.some((id) => id.startsWith('DataPlaneClusterProxy'))).toBe(true);
    const all = template.toJSON().Resources as Record<string, { DependsOn?: string[]; Properties?: any }>;
    for (const [id, fn] of resources('AWS::Lambda::Function')) {
      const group = Object.values(groups).find((g) => g.description === fn.Properties.Description);
      if (group?.needs.sql) expect(all[id]?.DependsOn, id).toContain(triggerId);
    }
    const rotation = Object.entries(all).find(([id]) => id.startsWith('DataPlaneLoginRotation'));
    expect(rotation?.[1].DependsOn).toContain(triggerId);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('login role and applies the SQL migrations'),
      Environment: { Variables: Match.objectLike({ MASTER_SECRET_ARN: Match.anyValue() }) },
    });
  });
});
