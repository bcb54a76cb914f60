import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayPath } from '../../infra/api-routes';
import { PlatformStack } from '../../infra/stack';
import { groups, routes, routesOf } from '../../shared/http/routes';

let template: Template;

beforeAll(() => {
  // Skip esbuild bundling of the function assets: the template is what these tests check.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PlatformStack(app, 'Test', { deletionProtection: true });
  template = Template.fromStack(stack);
});

const groupsWithRoutes = Object.values(groups).filter((group) => routesOf(group.name).length > 0);

describe('PlatformStack', () => {
  it('creates one Node.js 22 arm64 Lambda per endpoint group that has routes', () => {
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Runtime: 'nodejs22.x', Architectures: ['arm64'] },
    });
    expect(Object.keys(functions)).toHaveLength(groupsWithRoutes.length);
    for (const group of groupsWithRoutes) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: group.description,
        Runtime: 'nodejs22.x',
        Environment: {
          Variables: Match.objectLike({ TABLE_NAME: Match.anyValue(), JWT_SIGNING_KEY_ID: Match.anyValue() }),
        },
      });
    }
  });

  it('creates an API Gateway route for every route of the route table', () => {
    const created = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (resource) => resource.Properties.RouteKey as string,
    );
    const expected = routes.map((route) => `${route.method} ${gatewayPath(route)}`);
    expect(created.sort()).toEqual([...expected].sort());
  });

  it('integrates each route with the Lambda of its group', () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    expect(Object.keys(integrations)).toHaveLength(groupsWithRoutes.length);
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('creates the control-plane table on demand, with PITR, TTL, GSI1 and deletion protection', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expires_at_epoch', Enabled: true },
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'GSI1' })],
      Replicas: [
        Match.objectLike({
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ],
    });
  });

  it('creates an ECC P-256 signing key and lets only the auth function sign', () => {
    template.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const signers = policies.filter((policy) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('"kms:Sign"'),
    );
    expect(signers).toHaveLength(1);
    expect(JSON.stringify(signers[0]?.Properties.Roles)).toContain('AuthFunction');
  });

  it('grants every function read and write on the table and nothing on a wildcard resource', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    for (const policy of policies) {
      for (const statement of policy.Properties.PolicyDocument.Statement as { Resource: unknown }[]) {
        expect(statement.Resource).not.toBe('*');
      }
    }
  });
});

describe('PlatformStack endpoint groups', () => {
  function integrationTarget(routeKey: string): string {
    const route = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).find(
      (resource) => resource.Properties.RouteKey === routeKey,
    );
    if (!route) throw new Error(`no route ${routeKey}`);
    const integrationId = (route.Properties.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
    const integration = template.findResources('AWS::ApiGatewayV2::Integration')[integrationId.Ref];
    return JSON.stringify(integration?.Properties.IntegrationUri);
  }

  it('sends the role routes to the roles function', () => {
    for (const key of [
      'GET /api/app/{app_slug}/roles',
      'POST /api/assign/roles',
      'DELETE /api/revoke/roles',
      'GET /api/roles/{role_slug}/descendants',
      'POST /api/users/{username}/roles',
    ]) {
      expect(integrationTarget(key)).toContain('RolesFunction');
    }
  });

  it('sends the record routes to the data function', () => {
    for (const key of [
      'POST /api/apps/{app_slug}/datatables/{name}/data',
      'POST /api/apps/{app_slug}/datatables/{name}/data/upsert',
      'DELETE /api/apps/{app_slug}/datatables/{name}/data/{id}',
    ]) {
      expect(integrationTarget(key)).toContain('DataFunction');
    }
  });
});

describe('PlatformStack meta group', () => {
  it('sends the API description, the explorer and the health check to their own function', () => {
    for (const key of ['GET /ninja-openapi.json', 'GET /openapi.json', 'GET /ninja-docs', 'GET /health']) {
      const route = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).find(
        (resource) => resource.Properties.RouteKey === key,
      );
      expect(route, key).toBeDefined();
      expect(route?.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    }
    template.hasResourceProperties('AWS::Lambda::Function', { Description: groups.meta.description });
  });

  it('lets the meta function describe the table, which the health check does', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes('MetaFunction'),
    );
    expect(JSON.stringify(policies.map((policy) => policy.Properties.PolicyDocument))).toContain(
      '"dynamodb:DescribeTable"',
    );
  });
});

describe('PlatformStack CORS', () => {
  it('answers preflights for any origin by default, like the local server', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowHeaders: ['authorization', 'content-type', 'x-site'],
        AllowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        ExposeHeaders: ['x-request-id', 'allow', 'retry-after', 'x-total-count'],
        MaxAge: 3600,
      },
    });
  });

  it('follows the corsOrigins setting', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new PlatformStack(app, 'Cors', {
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
    });
    Template.fromStack(stack).hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({
        AllowOrigins: ['https://app.example.com', 'http://localhost:5173'],
      }),
    });
  });
});

describe('PlatformStack secret store', () => {
  const secretsKeyId = () => {
    const keys = template.findResources('AWS::KMS::Key', { Properties: { EnableKeyRotation: true } });
    expect(Object.keys(keys)).toHaveLength(1);
    return Object.keys(keys)[0] as string;
  };

  it('creates a symmetric KMS key with rotation for the secret store', () => {
    const id = secretsKeyId();
    const key = template.findResources('AWS::KMS::Key')[id];
    expect(key?.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key?.Properties.KeyUsage ?? 'ENCRYPT_DECRYPT').toBe('ENCRYPT_DECRYPT');
  });

  it('gives the key to the secrets function only, through SECRETS_KEY_ID', () => {
    const id = secretsKeyId();
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const holders = functions.filter(
      (fn) => fn.Properties.Environment?.Variables?.SECRETS_KEY_ID !== undefined,
    );
    expect(holders).toHaveLength(1);
    expect(holders[0]?.Properties.Description).toBe(groups.secrets.description);
    expect(holders[0]?.Properties.Environment.Variables.SECRETS_KEY_ID).toEqual({
      'Fn::GetAtt': [id, 'Arn'],
    });
  });

  it('grants GenerateDataKey and Decrypt to the secrets function only, constrained by the encryption context', () => {
    const id = secretsKeyId();
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const statements = policies.flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]).map((statement) => ({
        statement,
        roles: JSON.stringify(policy.Properties.Roles),
      })),
    );
    const users = statements.filter(({ statement }) =>
      /kms:(GenerateDataKey|Decrypt)/.test(JSON.stringify(statement.Action)),
    );
    expect(users).toHaveLength(1);
    expect(users[0]?.roles).toContain('SecretsFunction');
    expect(users[0]?.statement).toEqual({
      Effect: 'Allow',
      Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
      Resource: { 'Fn::GetAtt': [id, 'Arn'] },
      Condition: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['site', 'app', 'key'] },
        Null: {
          'kms:EncryptionContext:site': 'false',
          'kms:EncryptionContext:app': 'false',
          'kms:EncryptionContext:key': 'false',
        },
      },
    });
  });

  it('routes the secret store endpoints to the secrets function', () => {
    const created = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (resource) => resource.Properties.RouteKey as string,
    );
    for (const key of ['GET /api/secrets/{key}', 'POST /api/secret-types', 'PATCH /api/tags/{slug}'])
      expect(created.some((routeKey) => routeKey.startsWith(key))).toBe(true);
  });
});

describe('PlatformStack mail', () => {
  it('lets only the invitations function send mail, as the configured sender', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new PlatformStack(app, 'Mail', {
      mailSender: 'invites@example.com',
      invitationLinkBase: 'https://app.example.com/join',
    });
    const mail = Template.fromStack(stack);
    mail.hasResourceProperties('AWS::Lambda::Function', {
      Description: groups.invitations.description,
      Environment: {
        Variables: Match.objectLike({
          MAIL_SES_SENDER: 'invites@example.com',
          INVITATION_LINK_BASE: 'https://app.example.com/join',
        }),
      },
    });
    const sendStatements = Object.values(mail.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown }>).filter(
        (statement) => statement.Action === 'ses:SendEmail',
      ),
    );
    expect(sendStatements).toHaveLength(1);
    expect(sendStatements[0]).toMatchObject({
      Condition: { StringEquals: { 'ses:FromAddress': 'invites@example.com' } },
    });
    expect(JSON.stringify(sendStatements[0])).toContain(':identity/invites@example.com');
    expect(JSON.stringify(sendStatements[0])).toContain(':identity/example.com');
  });

  it('grants no mail permission without a sender', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown }>,
    );
    expect(statements.filter((statement) => JSON.stringify(statement.Action).includes('ses:'))).toEqual([]);
  });
});
