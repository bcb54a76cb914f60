import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { scheduleMinutes, sweeperTimeoutMinutes } from '../../infra/deletions';
import { PlatformStack } from '../../infra/stack';
import { sweepRequest } from '../../shared/adapters/aws/lambda-deletion-hand-off';

/**
 * The deletion sweeper in the stack (infra/deletions.ts, docs/lifecycle.md "Finished in the background"): a
 * function in the VPC with the app's login and the table, invoked by the accounts function (which serves the
 * deletions) and by a schedule; only those two may invoke it.
 */

let template: Template;
let stack: PlatformStack;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new PlatformStack(app, 'Test', { deletionProtection: true });
  template = Template.fromStack(stack);
});

const sweeperId = () => {
  const sweeper = stack.deletionSweeper;
  if (!sweeper) throw new Error('no deletion sweeper in the stack');
  return stack.getLogicalId(sweeper.function.node.defaultChild as never);
};

describe('the deletion sweeper', () => {
  it('is a Node.js 24 function in the VPC, with the app login, the table and minutes to work', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Finishes pending deletions'),
      Runtime: 'nodejs24.x',
      Timeout: sweeperTimeoutMinutes * 60,
      VpcConfig: Match.objectLike({ SubnetIds: Match.anyValue(), SecurityGroupIds: Match.anyValue() }),
      Environment: {
        Variables: Match.objectLike({
          TABLE_NAME: Match.anyValue(),
          JWT_SIGNING_KEY_ID: Match.anyValue(),
          DATABASE_HOST: Match.anyValue(),
          DATABASE_USER: 'platform_app',
          DATABASE_SECRET_ARN: Match.anyValue(),
        }),
      },
    });
  });

  it('runs on a schedule, with the sweep request as input', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${scheduleMinutes} minutes)`,
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [sweeperId(), 'Arn'] },
          Input: JSON.stringify(sweepRequest),
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [sweeperId(), 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('is named to the accounts function, which alone may invoke it (asynchronously, not retried by Lambda)', () => {
    const accounts = stack.functions.get('accounts');
    if (!accounts) throw new Error('no accounts function');
    const accountsId = stack.getLogicalId(accounts.node.defaultChild as never);
    expect(template.toJSON().Resources[accountsId].Properties.Environment.Variables).toMatchObject({
      DELETION_SWEEPER_FUNCTION: { Ref: sweeperId() },
    });
    const invokers = Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: {
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Action: 'lambda:InvokeFunction',
                Resource: { 'Fn::GetAtt': [sweeperId(), 'Arn'] },
              }),
            ]),
          },
        },
      }),
    );
    const accountsRole = stack.getLogicalId(accounts.role?.node.defaultChild as never);
    expect(invokers.map((policy) => policy.Properties.Roles)).toEqual([[{ Ref: accountsRole }]]);
    // Only the accounts function is told the sweeper's name.
    const told = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties.Environment?.Variables?.DELETION_SWEEPER_FUNCTION,
    );
    expect(told.map((fn) => fn.Properties.Description)).toEqual([
      template.toJSON().Resources[accountsId].Properties.Description,
    ]);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: sweeperId() },
      MaximumRetryAttempts: 0,
    });
  });

  it('is updated after the migration step, and alarmed on', () => {
    const sweeper = template.toJSON().Resources[sweeperId()];
    expect(JSON.stringify(sweeper.DependsOn ?? [])).toMatch(/Migration/);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('deletion sweeper failed in two of 15 minutes'),
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: sweeperId() } }],
    });
  });
});
