import type { RemovalPolicy } from 'aws-cdk-lib';
import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { groups } from '../functions/groups';
import type { GroupName } from '../shared/api/route';

/**
 * PRE_USER_CREATE in the cloud: an Express state machine that the one user-creation service starts with
 * StartSyncExecution. A Map runs every subscriber concurrently as a Lambda invocation with the proposed user and a
 * timeout; the first failure (an error, a timeout, a function Lambda cannot start) fails the whole execution with
 * the failing subscriber named in the cause, and the caller saves the user only when the execution SUCCEEDED.
 * POST_USER_CREATE needs no workflow: the creating functions invoke subscribers with `InvocationType: Event`.
 * docs/events.md, "In the cloud".
 */

/**
 * The groups whose functions create users (admin create, invitations, social sign-in), as their manifests say
 * (`needs.createsUsers`): they publish.
 */
export const userCreatingGroups: readonly GroupName[] = Object.values(groups)
  .filter((group) => group.needs.createsUsers)
  .map((group) => group.name);

/** The synchronous Express limit: StartSyncExecution waits at most five minutes. */
export const syncLimitSeconds = 300;

/**
 * EVENT_FUNCTION_TIMEOUT_SECONDS: how long the whole PRE_USER_CREATE execution may take (default 10, at most
 * 25), so that the user-creating request answers within API Gateway's 29 s integration limit, retries included.
 */
export const userCreationHook = { defaultSeconds: 10, maxSeconds: 25 } as const;

/** Lambda's transient errors (service faults, throttling): retried with back-off before a subscriber fails. */
export const retriedLambdaErrors = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
] as const;

export interface UserCreationEventsProps {
  /** The name prefix of the Lambda functions tenants may register (EVENT_FUNCTION_PREFIX). */
  readonly functionPrefix: string;
  /** The account of those functions (EVENT_FUNCTION_ACCOUNT); default the stack's. */
  readonly functionAccount?: string;
  /** Each subscriber's timeout in seconds (default and maximum: the execution's). */
  readonly timeoutSeconds?: number;
  /** The whole execution's timeout in seconds (EVENT_FUNCTION_TIMEOUT_SECONDS, default 10, at most 25). */
  readonly executionTimeoutSeconds?: number;
  readonly logRetention: RetentionDays;
  readonly logRemoval: RemovalPolicy;
}

/**
 * The state machine's definition (Amazon States Language), input `{event, subscribers: [WorkflowTask]}`: each
 * subscriber within `timeoutSeconds`, the whole execution within `executionTimeoutSeconds`.
 */
export function userCreationDefinition(
  timeoutSeconds: number,
  executionTimeoutSeconds = timeoutSeconds,
): Record<string, unknown> {
  return {
    Comment:
      'PRE_USER_CREATE: every subscriber concurrently; any failure fails the execution and no user is saved',
    StartAt: 'Subscribers',
    TimeoutSeconds: executionTimeoutSeconds,
    States: {
      Subscribers: {
        Type: 'Map',
        ItemsPath: '$.subscribers',
        MaxConcurrency: 0,
        ItemProcessor: {
          ProcessorConfig: { Mode: 'INLINE' },
          StartAt: 'InvokeSubscriber',
          States: {
            InvokeSubscriber: {
              Type: 'Task',
              Resource: 'arn:aws:states:::lambda:invoke',
              Parameters: { 'FunctionName.$': '$.function_arn', 'Payload.$': '$.payload' },
              TimeoutSeconds: timeoutSeconds,
              // Lambda's own hiccups, not the subscriber's errors: at most two more tries, 1 s then 2 s apart,
              // all within the execution's timeout.
              Retry: [
                { ErrorEquals: [...retriedLambdaErrors], IntervalSeconds: 1, MaxAttempts: 2, BackoffRate: 2 },
              ],
              ResultPath: null,
              Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'DescribeFailure' }],
              End: true,
            },
            // Names the subscriber in the cause without the proposed user (the cause is returned and logged).
            DescribeFailure: {
              Type: 'Pass',
              Parameters: {
                'function_id.$': '$.function_id',
                'function_name.$': '$.function_name',
                'task_id.$': '$.task_id',
                'failure.$': '$.failure',
              },
              Next: 'SubscriberFailed',
            },
            SubscriberFailed: {
              Type: 'Fail',
              ErrorPath: '$.failure.Error',
              CausePath: 'States.JsonToString($)',
            },
          },
        },
        ResultPath: null,
        End: true,
      },
    },
  };
}

export class UserCreationEvents extends Construct {
  readonly stateMachine: StateMachine;
  /** The ARN pattern of the functions tenants may register, and the only functions anything here may invoke. */
  readonly functionArns: string[];
  readonly functionAccount: string;
  readonly functionPrefix: string;
  /** EVENT_FUNCTION_TIMEOUT_SECONDS. */
  readonly executionTimeoutSeconds: number;

  constructor(scope: Construct, id: string, props: UserCreationEventsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const execution = props.executionTimeoutSeconds ?? userCreationHook.defaultSeconds;
    if (!Number.isInteger(execution) || execution < 1 || execution > userCreationHook.maxSeconds)
      throw new Error(
        `EVENT_FUNCTION_TIMEOUT_SECONDS must be a whole number of seconds from 1 to ${userCreationHook.maxSeconds} (the API answers within 29 s), got ${execution}`,
      );
    this.executionTimeoutSeconds = execution;
    const timeout = Math.min(props.timeoutSeconds ?? execution, execution);
    this.functionAccount = props.functionAccount ?? stack.account;
    this.functionPrefix = props.functionPrefix;
    const functionArn = (suffix: string) =>
      `arn:${stack.partition}:lambda:${stack.region}:${this.functionAccount}:function:${props.functionPrefix}${suffix}`;
    // The function itself and its versions and aliases.
    this.functionArns = [functionArn('*'), functionArn('*:*')];
    const logs = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemoval,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.EXPRESS,
      definitionBody: DefinitionBody.fromString(JSON.stringify(userCreationDefinition(timeout, execution))),
      timeout: Duration.seconds(execution),
      // Every event, without the execution data: the proposed user is personal data.
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: this.functionArns }),
    );
    Validations.of(this.stateMachine).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Step Functions log delivery (logs:CreateLogDelivery and the rest) and X-Ray take no resource ARN; CDK adds ' +
          'the statement that logging requires.',
      },
      ...this.invokeFindings(),
    );
  }

  /** The cdk-nag findings of invoking the registered prefix: wildcards by design, as subscribers come and go. */
  private invokeFindings() {
    const stack = Stack.of(this);
    const account = Token.isUnresolved(this.functionAccount) ? '<AWS::AccountId>' : this.functionAccount;
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    const arn = `arn:<AWS::Partition>:lambda:${region}:${account}:function:${this.functionPrefix}*`;
    const reason =
      'Subscribers are registered at run time: only functions whose name has the registered prefix, with their ' +
      'versions and aliases; the platform checks the per-site part (<prefix><site-slug>--) on registration and ' +
      'before every invocation.';
    return [
      { id: `AwsSolutions-IAM5[Resource::${arn}]`, reason },
      { id: `AwsSolutions-IAM5[Resource::${arn}:*]`, reason },
    ];
  }

  /**
   * Lets a function that creates users publish: StartSyncExecution on this state machine (PRE), asynchronous
   * invocation of the registered functions only (POST), and the account and prefix to check every subscriber's
   * target against its site's rule before each run (`<prefix><site-slug>--<name>`; without them every subscriber
   * is refused). IAM bounds invocations to the prefix; which site a function belongs to is that check's.
   */
  grantPublish(fn: LambdaFunction): void {
    fn.addEnvironment('EVENT_STATE_MACHINE_ARN', this.stateMachine.stateMachineArn);
    fn.addEnvironment('EVENT_FUNCTION_TIMEOUT_SECONDS', String(this.executionTimeoutSeconds));
    this.configureRegistry(fn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:StartSyncExecution'],
        resources: [this.stateMachine.stateMachineArn],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: this.functionArns }),
    );
    if (fn.role) Validations.of(fn.role).acknowledge(...this.invokeFindings());
  }

  /** Lets a function check targets against the allowed account and prefix (the events function, the publishers). */
  configureRegistry(fn: LambdaFunction): void {
    fn.addEnvironment('EVENT_FUNCTION_ACCOUNT', this.functionAccount);
    fn.addEnvironment('EVENT_FUNCTION_PREFIX', this.functionPrefix);
  }
}
