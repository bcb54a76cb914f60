import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { sweepRequest } from '../shared/adapters/aws/lambda-deletion-hand-off';
import { tableReads, tableWrites } from '../shared/api/group';
import { groupCode, lambdaRuntime } from './bundling';
import { sweeperConcurrency } from './concurrency';
import type { DataPlane } from './data-plane';
import { functionRole } from './function-role';
import { grantTableAccess } from './table-access';

/**
 * The deletion sweeper (docs/lifecycle.md, "Finished in the background"): a Lambda in the VPC
 * (functions/deletions/handler.ts) that finishes every pending deletion. The functions that serve deletions invoke
 * it asynchronously when a deletion answers 202 (DELETION_SWEEPER_FUNCTION); a schedule invokes it every
 * `scheduleMinutes` besides, which finishes what a lost or failed hand-off, a cleanup that failed, or a sweep cut
 * by its time-out left. It needs what the deletions need: the table, and the app's database login (it drops data
 * tables and site schemas).
 */

/** How often the schedule sweeps; also the longest a deletion waits when its hand-off was lost. */
export const scheduleMinutes = 5;
/** The sweeper's time-out: a sweep stops taking passes a minute before it (functions/deletions/handler.ts). */
export const sweeperTimeoutMinutes = 5;

export interface DeletionSweeperProps {
  readonly table: ITableV2;
  readonly dataPlane: DataPlane;
  /** The environment every function of the stack has (table, JWT configuration); the sweeper's config loads it. */
  readonly environment: Record<string, string>;
  readonly logRetention: RetentionDays;
  readonly logRemoval: RemovalPolicy;
}

export class DeletionSweeper extends Construct {
  readonly function: NodejsFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: DeletionSweeperProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemoval,
    });
    this.function = new NodejsFunction(this, 'Function', {
      // The same esbuild bundle as the endpoint groups (infra/bundling.ts).
      code: groupCode('deletions'),
      handler: 'index.handler',
      description: 'Finishes pending deletions of apps, sites, organizations and users (docs/lifecycle.md)',
      runtime: lambdaRuntime,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: Duration.minutes(sweeperTimeoutMinutes),
      logGroup,
      role: functionRole(this, 'Role', logGroup, true),
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      tracing: Tracing.ACTIVE,
      environment: { ...props.environment, ...props.dataPlane.environment('app') },
      ...props.dataPlane.functionPlacement(),
      // One sweep at a time: two beside each other wait on the same row locks until the statement timeout, and
      // page someone for nothing. An invocation (a hand-off, the schedule) that comes during a sweep is throttled,
      // and Lambda keeps an asynchronous one and retries it for up to maxEventAge, so it runs after the sweep.
      reservedConcurrentExecutions: sweeperConcurrency,
    });
    // A failed sweep is not retried by Lambda (retryAttempts 0): the schedule is the retry. A throttled invocation
    // is retried by Lambda within maxEventAge (one schedule period), then dropped: the next schedule covers it.
    this.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(scheduleMinutes) });
    grantTableAccess(props.table, this.function, [...tableReads, ...tableWrites]);
    props.dataPlane.grantConnect(this.function, 'app');

    this.schedule = new Rule(this, 'Schedule', {
      description: 'Sweeps pending deletions that no hand-off finished',
      schedule: Schedule.rate(Duration.minutes(scheduleMinutes)),
      targets: [
        new LambdaFunction(this.function, {
          event: RuleTargetInput.fromObject(sweepRequest),
          retryAttempts: 0,
        }),
      ],
    });
  }

  /** Lets a function that serves deletions hand them over: invoke the sweeper, named in its environment. */
  grantHandOff(fn: NodejsFunction): void {
    // The function itself only (grantInvoke would add its versions and aliases, `:*`, which it has none of).
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.function.functionArn] }),
    );
    fn.addEnvironment('DELETION_SWEEPER_FUNCTION', this.function.functionName);
  }
}
