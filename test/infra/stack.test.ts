import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { groups, routesOf } from '../../functions/groups';
import { PlatformStack } from '../../infra/stack';
import { keyUseAccess, tableAccess } from '../../infra/table-access';

let template: Template;

beforeAll(() => {
  // Skip esbuild bundling of the function assets: the template is what these tests check.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PlatformStack(app, 'Test', { deletionProtection: true });
  template = Template.fromStack(stack);
});

const groupsWithRoutes = Object.values(groups).filter((group) => routesOf(group.name).length > 0);

describe('PlatformStack', () => {
  it('creates one Node.js 24 arm64 Lambda per endpoint group that has routes', () => {
    const functions = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Runtime: 'nodejs24.x', Architectures: ['arm64'] },
      }),
    ).filter((fn) => groupsWithRoutes.some((group) => group.description === fn.Properties.Description));
    expect(functions).toHaveLength(groupsWithRoutes.length);
    for (const group of groupsWithRoutes) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: group.description,
        Runtime: 'nodejs24.x',
        Environment: {
          Variables: Match.objectLike({ TABLE_NAME: Match.anyValue(), JWT_SIGNING_KEY_ID: Match.anyValue() }),
        },
      });
    }
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
    expect(JSON.stringify(signers[0]?.Properties.Roles)).toContain('AuthRole');
  });

  it('grants on a wildcard resource only what AWS offers no resource for: X-Ray and network interfaces', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    for (const policy of policies) {
      for (const statement of policy.Properties.PolicyDocument.Statement as {
        Action: string | string[];
        Resource: unknown;
      }[]) {
        if (statement.Resource !== '*') continue;
        for (const action of [statement.Action].flat()) expect(action).toMatch(/^(xray|ec2|logs):/);
      }
    }
  });
});

describe('PlatformStack meta group', () => {
  it('sends the API description, the explorer and the health check to their own function', () => {
    for (const key of ['ANY /ninja-openapi.json', 'ANY /openapi.json', 'ANY /ninja-docs', 'ANY /health']) {
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
      JSON.stringify(policy.Properties.Roles).includes('MetaRole'),
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
        // Listed origins only: their apps may send the browser session cookie.
        AllowCredentials: true,
      }),
    });
  });

  it('never allows credentials for any origin', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['*'], AllowCredentials: Match.absent() }),
    });
  });
});

describe('PlatformStack secret store', () => {
  const secretsKeyId = () => {
    // The alarm topic's key rotates too: the secret store's is the one named SecretsKey.
    const keys = Object.keys(
      template.findResources('AWS::KMS::Key', { Properties: { EnableKeyRotation: true } }),
    ).filter((id) => id.startsWith('SecretsKey'));
    expect(keys).toHaveLength(1);
    return keys[0] as string;
  };

  it('creates a symmetric KMS key with rotation for the secret store', () => {
    const id = secretsKeyId();
    const key = template.findResources('AWS::KMS::Key')[id];
    expect(key?.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key?.Properties.KeyUsage ?? 'ENCRYPT_DECRYPT').toBe('ENCRYPT_DECRYPT');
  });

  it("gives the key to the secrets, auth (social apps' secrets) and events (webhooks' secrets) functions only, through SECRETS_KEY_ID", () => {
    const id = secretsKeyId();
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const holders = functions.filter(
      (fn) => fn.Properties.Environment?.Variables?.SECRETS_KEY_ID !== undefined,
    );
    expect(holders.map((fn) => fn.Properties.Description).sort()).toEqual(
      [groups.auth.description, groups.events.description, groups.secrets.description].sort(),
    );
    for (const holder of holders)
      expect(holder.Properties.Environment.Variables.SECRETS_KEY_ID).toEqual({ 'Fn::GetAtt': [id, 'Arn'] });
  });

  it('grants GenerateDataKey and Decrypt to the secrets, auth and events functions only, constrained by the encryption context', () => {
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
    expect(users).toHaveLength(3);
    expect(users.map(({ roles }) => /AuthRole|EventsRole|SecretsRole/.exec(roles)?.[0]).sort()).toEqual([
      'AuthRole',
      'EventsRole',
      'SecretsRole',
    ]);
    for (const { statement, roles } of users)
      expect(statement).toEqual({
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
          // Each its own share: auth the social apps' and the TOTP secrets' contexts, events the webhooks',
          // secrets every other one.
          ...(roles.includes('AuthRole')
            ? { StringEquals: { 'kms:EncryptionContext:app': ['~social', '~mfa'] } }
            : roles.includes('EventsRole')
              ? { StringEquals: { 'kms:EncryptionContext:app': '~webhooks' } }
              : { StringNotEquals: { 'kms:EncryptionContext:app': ['~social', '~mfa', '~webhooks'] } }),
        },
      });
  });

  it('routes the secret store endpoints to the secrets function', () => {
    const created = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (resource) => resource.Properties.RouteKey as string,
    );
    // Greedy prefix routes per group (infra/api-routes.ts); test/infra/routing.test.ts proves each path's target.
    for (const key of [
      'ANY /api/secrets/{proxy+}',
      'ANY /api/secret-types/{proxy+}',
      'ANY /api/tags/{proxy+}',
    ])
      expect(created).toContain(key);
  });
});

describe('PlatformStack mail', () => {
  it('lets only the invitations, auth and accounts functions send mail, as the configured sender', () => {
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
    // Invitations send the invitation; auth the notice of what a proven address ended (shared/social/proof.ts);
    // accounts a superuser's reset link for someone (shared/recovery/password-reset.ts, sendPasswordResetFor).
    expect(sendStatements).toHaveLength(3);
    for (const statement of sendStatements) {
      expect(statement).toMatchObject({
        Condition: { StringEquals: { 'ses:FromAddress': 'invites@example.com' } },
      });
      expect(JSON.stringify(statement)).toContain(':identity/invites@example.com');
      expect(JSON.stringify(statement)).toContain(':identity/example.com');
    }
  });

  it('grants no mail permission without a sender', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown }>,
    );
    expect(statements.filter((statement) => JSON.stringify(statement.Action).includes('ses:'))).toEqual([]);
  });
});

describe('PlatformStack least privilege on the table', () => {
  type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
  /** A function's statements on the table: its unconditioned actions (the conditioned ones are tested below). */
  function tableActionsOf(functionId: string): Map<string, Set<string>> {
    const byResource = new Map<string, Set<string>>();
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(functionId),
    );
    for (const policy of policies) {
      for (const statement of policy.Properties.PolicyDocument.Statement as Statement[]) {
        if (statement.Condition) continue;
        const actions = [statement.Action].flat().filter((action) => action.startsWith('dynamodb:'));
        for (const resource of [statement.Resource].flat()) {
          const key = JSON.stringify(resource).includes('/index/') ? 'index' : 'table';
          const set = byResource.get(key) ?? new Set<string>();
          for (const action of actions) set.add(action);
          byResource.set(key, set);
        }
      }
    }
    return byResource;
  }

  it("grants the functions that only read the table UpdateItem on API keys' last-use items alone", () => {
    const conditioned = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Statement[])
        .filter((statement) => statement.Condition && JSON.stringify(statement.Action).includes('dynamodb:'))
        .map((statement) => ({ statement, roles: JSON.stringify(policy.Properties.Roles) })),
    );
    const readers = groupsWithRoutes.filter((group) => keyUseAccess[group.name]).map((group) => group.name);
    expect(readers).toEqual(['data']);
    expect(conditioned).toHaveLength(1);
    expect(conditioned[0]?.roles).toContain('DataRole');
    expect(conditioned[0]?.statement).toMatchObject({
      Action: 'dynamodb:UpdateItem',
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEYUSE#*'] } },
    });
  });

  it('grants each function exactly its declared table actions, and queries on the named indexes only', () => {
    for (const group of groupsWithRoutes) {
      const actions = tableActionsOf(`${group.name[0]?.toUpperCase()}${group.name.slice(1)}Role`);
      expect([...(actions.get('table') ?? [])].sort(), group.name).toEqual(
        [...tableAccess[group.name]].sort(),
      );
      const queries = tableAccess[group.name].includes('dynamodb:Query') ? ['dynamodb:Query'] : [];
      expect([...(actions.get('index') ?? [])], group.name).toEqual(queries);
    }
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
    );
    expect(JSON.stringify(statements)).not.toContain('/index/*');
  });

  it('never grants Scan, stream, table management or wildcard DynamoDB actions', () => {
    for (const actions of Object.values(tableAccess)) {
      for (const action of actions) {
        expect(action).not.toMatch(/Scan|Stream|\*|CreateTable|DeleteTable|UpdateTable|PartiQL/);
      }
    }
  });

  it('lets only the groups that own control-plane items write, and only roles delete in batches', () => {
    const writers = Object.entries(tableAccess)
      .filter(([, actions]) => actions.some((action) => /Put|Update|Delete|BatchWrite/.test(action)))
      .map(([group]) => group);
    expect(writers.sort()).toEqual([
      'accounts',
      'auth',
      'events',
      'invitations',
      'pages',
      'roles',
      'secrets',
    ]);
    expect(tableAccess.data).toEqual(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']);
    const batchWriters = Object.entries(tableAccess).filter(([, actions]) =>
      actions.includes('dynamodb:BatchWriteItem'),
    );
    expect(batchWriters.map(([group]) => group)).toEqual(['roles']);
  });
});
