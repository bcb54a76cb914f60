import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { userCreatingGroups } from '../../infra/events';
import { PlatformStack } from '../../infra/stack';

/** The PRE_USER_CREATE state machine and who may start it and what it may invoke (infra/events.ts). */

let template: Template;
let stack: PlatformStack;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new PlatformStack(app, 'Events', {
    env: { account: '111111111111', region: 'eu-west-1' },
    eventFunctions: { prefix: 'acme-fn-', timeoutSeconds: 8 },
    userCreationHookTimeoutSeconds: 20,
  });
  template = Template.fromStack(stack);
});

const stateMachineLogicalId = () =>
  stack.getLogicalId(stack.userCreationEvents.stateMachine.node.defaultChild as never);

function definition(): Record<string, any> {
  const machine = template.findResources('AWS::StepFunctions::StateMachine');
  const resource = Object.values(machine)[0] as { Properties: { DefinitionString: unknown } };
  const raw = resource.Properties.DefinitionString;
  return JSON.parse(typeof raw === 'string' ? raw : JSON.stringify(raw));
}

describe('the PRE_USER_CREATE state machine', () => {
  it('is one Express state machine with logging of every event (no execution data) and tracing', () => {
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'EXPRESS',
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
      TracingConfiguration: { Enabled: true },
    });
  });

  it('maps every subscriber to a Lambda invoke task with the timeout, failing on the first failure', () => {
    const asl = definition();
    // The whole execution within EVENT_FUNCTION_TIMEOUT_SECONDS, each subscriber within its own timeout.
    expect(asl.TimeoutSeconds).toBe(20);
    const map = asl.States[asl.StartAt];
    expect(map).toMatchObject({ Type: 'Map', ItemsPath: '$.subscribers', MaxConcurrency: 0 });
    const states = map.ItemProcessor.States;
    expect(states[map.ItemProcessor.StartAt]).toEqual({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { 'FunctionName.$': '$.function_arn', 'Payload.$': '$.payload' },
      TimeoutSeconds: 8,
      Retry: [
        {
          ErrorEquals: [
            'Lambda.ServiceException',
            'Lambda.AWSLambdaException',
            'Lambda.SdkClientException',
            'Lambda.TooManyRequestsException',
          ],
          IntervalSeconds: 1,
          MaxAttempts: 2,
          BackoffRate: 2,
        },
      ],
      ResultPath: null,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'DescribeFailure' }],
      End: true,
    });
    expect(states.DescribeFailure.Next).toBe('SubscriberFailed');
    expect(states.SubscriberFailed).toEqual({
      Type: 'Fail',
      ErrorPath: '$.failure.Error',
      CausePath: 'States.JsonToString($)',
    });
  });

  it('may invoke only functions of the registered prefix', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    const machineRole = Object.values(policies).find((policy) =>
      JSON.stringify(policy.Properties.Roles).includes('UserCreationEventsStateMachineRole'),
    );
    const invoke = machineRole?.Properties.PolicyDocument.Statement.filter(
      (statement: { Action: unknown }) => statement.Action === 'lambda:InvokeFunction',
    );
    expect(invoke).toHaveLength(1);
    const resources = JSON.stringify(invoke[0].Resource);
    expect(resources).toContain(':lambda:eu-west-1:111111111111:function:acme-fn-*');
    expect(resources).not.toMatch(/"\*"/);
  });
});

describe('publishing functions', () => {
  it('grants StartSyncExecution on the state machine to the groups that create users, and only to them', () => {
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Action: 'states:StartSyncExecution' })]),
        },
      },
    });
    const roles = Object.values(policies).map((policy) => JSON.stringify(policy.Properties.Roles));
    expect(roles).toHaveLength(userCreatingGroups.length);
    for (const group of userCreatingGroups) {
      const pascal = group[0]?.toUpperCase() + group.slice(1);
      expect(roles.some((role) => role.includes(`${pascal}Role`))).toBe(true);
    }
    for (const policy of Object.values(policies)) {
      const statement = policy.Properties.PolicyDocument.Statement.find(
        (s: { Action: unknown }) => s.Action === 'states:StartSyncExecution',
      );
      expect(statement.Resource).toEqual({ Ref: stateMachineLogicalId() });
    }
  });

  it('tells the creating functions the state machine and the events function the allowed account and prefix', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Users, organizations'),
      Environment: {
        Variables: Match.objectLike({ EVENT_STATE_MACHINE_ARN: { Ref: stateMachineLogicalId() } }),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Event functions registry'),
      Environment: {
        Variables: Match.objectLike({
          EVENT_FUNCTION_ACCOUNT: '111111111111',
          EVENT_FUNCTION_PREFIX: 'acme-fn-',
        }),
      },
    });
  });

  it('tells every publishing function the account and prefix too: each target is checked again before it runs', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties.Environment?.Variables?.EVENT_STATE_MACHINE_ARN,
    );
    expect(functions).toHaveLength(userCreatingGroups.length);
    for (const fn of functions)
      expect(fn.Properties.Environment.Variables).toMatchObject({
        EVENT_FUNCTION_ACCOUNT: '111111111111',
        EVENT_FUNCTION_PREFIX: 'acme-fn-',
      });
  });
});
