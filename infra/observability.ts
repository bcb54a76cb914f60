import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { DataPlane } from './data-plane';
import { sweeperTimeoutMinutes } from './deletions';

export interface ObservabilityProps {
  readonly api: HttpApi;
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly table: ITableV2;
  readonly dataPlane?: DataPlane;
  /** Subscribed to the alarm topic when set. */
  readonly alarmEmail?: string;
  /** Prefix of the dashboard's name (the stage). */
  readonly name: string;
  /** The PRE_USER_CREATE state machine: failed and timed-out executions are alarmed on. */
  readonly stateMachine?: IStateMachine;
  /** The deploy-time migration function: its errors fail a deployment, and are alarmed on. */
  readonly migrationFunction?: IFunction;
  /** The deletion sweeper: its errors mean deletions are left pending (docs/lifecycle.md). */
  readonly deletionSweeper?: IFunction;
  /** The sweeper's timeout: its duration near it is alarmed on (default infra/deletions.ts). */
  readonly sweeperTimeout?: Duration;
  /** The account's Lambda concurrency quota (the concurrency alarms' scale). */
  readonly accountConcurrency: number;
  /** How much of it the stack reserves (the groups' reservations and the sweeper's). */
  readonly reservedConcurrency: number;
  /** The JWT signing key: one KMS Sign per token (docs/deploying.md, "Token signing"). */
  readonly signingKey?: IKey;
  /** The account's ECC request-rate quota per second (default `kmsEccRequestsPerSecond`). */
  readonly kmsEccQuota?: number;
}

/** Thresholds of the alarms; docs/deploying.md explains each (and says what to do). */
export const thresholds = {
  serverErrorPercent: 1,
  p99LatencyMs: 3000,
  /** A function's errors, percent of its invocations (periods with fewer than `minInvocations` count as 0). */
  functionErrorPercent: 1,
  /** Throttled, percent of the function's invocation attempts. */
  functionThrottlePercent: 1,
  /** Below this many invocations in a period a rate is not judged (one failed request of two is not 50%). */
  minInvocations: 20,
  /** PRE_USER_CREATE executions failed or timed out, percent of those started. */
  userCreationFailurePercent: 5,
  auroraCpuPercent: 80,
  auroraAcuPercent: 90,
  auroraConnections: 400,
  /** Sessions RDS Proxy pinned (the code pins none: docs/deploying.md lists what would). */
  pinnedSessions: 0,
  /** Percent of the account's concurrency quota in use. */
  accountConcurrencyPercent: 80,
  /** Percent of the unreserved pool (quota minus reservations) in use: tenant functions and unreserved groups. */
  unreservedConcurrencyPercent: 80,
  /** KMS Sign requests per second, percent of the ECC request-rate quota (300 per second by default). */
  kmsSignQuotaPercent: 80,
  /** The sweeper's longest run, percent of its timeout (it stops taking passes a minute before it: 80%). */
  sweeperDurationPercent: 90,
} as const;

/** The default "Cryptographic operations (ECC) request rate" of KMS, per account and region (shared). */
export const kmsEccRequestsPerSecond = 300;

/** How many periods an alarm looks at, and in how many of them the threshold must be crossed. */
interface Window {
  periods: number;
  breaching: number;
}
/** Sustained: three 5-minute periods in a row (a quarter of an hour, not one event). */
const sustained: Window = { periods: 3, breaching: 3 };
/** Recurring: two of three 5-minute periods. */
const recurring: Window = { periods: 3, breaching: 2 };
/** Once: a single event is the news (a failed deployment step, a failed rotation). */
const once: Window = { periods: 1, breaching: 1 };

const fiveMinutes = Duration.minutes(5);
const oneMinute = Duration.minutes(1);

/** The operations the platform sends to DynamoDB: SystemErrors is reported per table and operation. */
const tableOperations = [
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
  'Scan',
] as const;

/**
 * Alarms (to one SNS topic) and a dashboard: API 5xx rate and p99 latency, each function's errors and throttles,
 * Aurora CPU, capacity and connections, DynamoDB throttling.
 */
export class Observability extends Construct {
  readonly topic: Topic;
  /** Encrypts the alarm topic; CloudWatch alarms of this account may use it. */
  readonly topicKey: Key;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topicKey = this.alarmTopicKey();
    this.topic = new Topic(this, 'Alarms', {
      displayName: `${props.name} platform alarms`,
      enforceSSL: true,
      // A key of our own: CloudWatch cannot use the AWS managed alias/aws/sns key, so alarms on a topic encrypted
      // with it are never delivered.
      masterKey: this.topicKey,
    });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    const requests = props.api.metricCount({ period: fiveMinutes, statistic: 'Sum' });
    const serverErrors = props.api.metricServerError({ period: fiveMinutes, statistic: 'Sum' });
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      period: fiveMinutes,
      label: '5xx %',
    });
    const p99 = props.api.metricLatency({ period: fiveMinutes, statistic: 'p99' });
    this.alarm(
      'Api5xxRate',
      errorRate,
      thresholds.serverErrorPercent,
      'API 5xx responses above 1% of requests for 15 minutes',
      sustained,
    );
    this.alarm(
      'ApiLatencyP99',
      p99,
      thresholds.p99LatencyMs,
      'API p99 latency above 3 s for 15 minutes',
      sustained,
    );

    for (const [group, fn] of props.functions) {
      this.alarm(
        `${group}ErrorRate`,
        errorPercent(fn),
        thresholds.functionErrorPercent,
        `${group} function errors above ${thresholds.functionErrorPercent}% of invocations for 15 minutes`,
        sustained,
      );
      this.alarm(
        `${group}ThrottleRate`,
        throttlePercent(fn),
        thresholds.functionThrottlePercent,
        `${group} throttled above ${thresholds.functionThrottlePercent}% of invocations for 15 minutes`,
        sustained,
      );
    }
    this.concurrencyAlarms(props);
    if (props.signingKey) this.signingAlarm(props.kmsEccQuota ?? kmsEccRequestsPerSecond);

    const dynamoThrottles = new MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: tableMetric(props.table, 'ReadThrottleEvents'),
        writes: tableMetric(props.table, 'WriteThrottleEvents'),
      },
      period: fiveMinutes,
      label: 'DynamoDB throttle events',
    });
    this.alarm(
      'TableThrottles',
      dynamoThrottles,
      0,
      'DynamoDB requests throttled in each of 15 minutes',
      sustained,
    );
    const systemErrors = new MathExpression({
      expression: tableOperations.map((_, index) => `op${index}`).join(' + '),
      usingMetrics: Object.fromEntries(
        tableOperations.map((operation, index) => [
          `op${index}`,
          tableMetric(props.table, 'SystemErrors', { Operation: operation }),
        ]),
      ),
      period: fiveMinutes,
      label: 'DynamoDB system errors',
    });
    this.alarm(
      'TableSystemErrors',
      systemErrors,
      0,
      'DynamoDB answered with internal errors (HTTP 500) in two of 15 minutes',
      recurring,
    );

    if (props.stateMachine) {
      const machine = props.stateMachine;
      const started = machine.metricStarted({ period: fiveMinutes, statistic: 'Sum' });
      const share = (id: string, metric: IMetric) =>
        new MathExpression({
          expression: `IF(started >= ${thresholds.minInvocations}, 100 * ${id} / started, 0)`,
          usingMetrics: { started, [id]: metric },
          period: fiveMinutes,
        });
      this.alarm(
        'UserCreationFailed',
        share('failed', machine.metricFailed({ period: fiveMinutes, statistic: 'Sum' })),
        thresholds.userCreationFailurePercent,
        'PRE_USER_CREATE executions failing (a subscriber failed, or could not be invoked) above 5% for 15 minutes',
        sustained,
      );
      this.alarm(
        'UserCreationTimedOut',
        share('timedOut', machine.metricTimedOut({ period: fiveMinutes, statistic: 'Sum' })),
        thresholds.userCreationFailurePercent,
        'PRE_USER_CREATE executions timing out (EVENT_FUNCTION_TIMEOUT_SECONDS) above 5% for 15 minutes',
        sustained,
      );
    }
    if (props.migrationFunction) {
      this.alarm(
        'MigrationErrors',
        props.migrationFunction.metricErrors({ period: fiveMinutes }),
        0,
        'The deploy-time migration step failed (the deployment rolls back)',
        once,
      );
    }

    if (props.deletionSweeper) {
      const sweeper = props.deletionSweeper;
      this.alarm(
        'DeletionSweeperErrors',
        sweeper.metricErrors({ period: fiveMinutes }),
        0,
        'The deletion sweeper failed in two of 15 minutes: deletions that answered 202 stay pending until a sweep succeeds',
        recurring,
      );
      const timeout = (props.sweeperTimeout ?? Duration.minutes(sweeperTimeoutMinutes)).toMilliseconds();
      this.alarm(
        'DeletionSweeperDuration',
        sweeper.metricDuration({ period: fiveMinutes, statistic: 'Maximum' }),
        (timeout * thresholds.sweeperDurationPercent) / 100,
        `A sweep ran past ${thresholds.sweeperDurationPercent}% of its timeout: a pass took longer than the sweeper's last-minute margin`,
        recurring,
      );
    }

    const database = props.dataPlane ? this.databaseAlarms(props.dataPlane) : [];
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${props.name}-platform`,
      widgets: [
        [
          new GraphWidget({ title: 'Requests and 5xx', left: [requests, serverErrors], width: 8 }),
          new GraphWidget({ title: '5xx %', left: [errorRate], width: 8 }),
          new GraphWidget({ title: 'Latency p99 (ms)', left: [p99], width: 8 }),
        ],
        [
          this.perFunction('Errors', props.functions, (fn) => fn.metricErrors({ period: fiveMinutes })),
          this.perFunction('Throttles', props.functions, (fn) => fn.metricThrottles({ period: fiveMinutes })),
          this.perFunction('Duration p99 (ms)', props.functions, (fn) =>
            fn.metricDuration({ period: fiveMinutes, statistic: 'p99' }),
          ),
        ],
        [
          new GraphWidget({ title: 'DynamoDB throttle events', left: [dynamoThrottles], width: 8 }),
          ...database,
        ],
      ],
    });
  }

  /**
   * The topic's customer managed key: CloudWatch (alarms of this account and region only) may make and read data
   * keys with it to publish; the account administers it as usual.
   */
  private alarmTopicKey(): Key {
    const stack = Stack.of(this);
    const key = new Key(this, 'TopicKey', {
      description: 'Encrypts the platform alarm topic (CloudWatch alarms publish to it)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    return key;
  }

  private alarm(id: string, metric: IMetric, threshold: number, description: string, window: Window): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: window.periods,
      datapointsToAlarm: window.breaching,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }

  /**
   * The account's concurrency (every function of the account and region, tenants' included) against its quota,
   * and the unreserved pool against what the reservations leave: a tenant's busy functions drain the unreserved
   * pool first, and the groups without a reservation run in it.
   */
  private concurrencyAlarms(props: ObservabilityProps): void {
    const lambda = (metricName: string) =>
      new Metric({ namespace: 'AWS/Lambda', metricName, statistic: 'Maximum', period: oneMinute });
    this.alarm(
      'AccountConcurrency',
      lambda('ConcurrentExecutions'),
      (props.accountConcurrency * thresholds.accountConcurrencyPercent) / 100,
      `Lambda concurrency of the account above ${thresholds.accountConcurrencyPercent}% of its quota (${props.accountConcurrency}) in 3 of 5 minutes`,
      { periods: 5, breaching: 3 },
    );
    const unreserved = Math.max(props.accountConcurrency - props.reservedConcurrency, 1);
    this.alarm(
      'UnreservedConcurrency',
      lambda('UnreservedConcurrentExecutions'),
      (unreserved * thresholds.unreservedConcurrencyPercent) / 100,
      `Unreserved Lambda concurrency above ${thresholds.unreservedConcurrencyPercent}% of the unreserved pool (${unreserved}) in 3 of 5 minutes`,
      { periods: 5, breaching: 3 },
    );
  }

  /**
   * KMS Sign against the ECC request-rate quota, which every ECC key of the account and region shares (all stages
   * in the account): KMS publishes its API usage to AWS/Usage, per minute. Above the quota, KMS throttles signs,
   * and sign-ins and refreshes fail.
   */
  private signingAlarm(quota: number): void {
    const signs = new Metric({
      namespace: 'AWS/Usage',
      metricName: 'CallCount',
      dimensionsMap: { Service: 'KMS', Type: 'API', Resource: 'Sign', Class: 'None' },
      statistic: 'Sum',
      period: oneMinute,
    });
    const percent = new MathExpression({
      expression: `100 * (signs / 60) / ${quota}`,
      usingMetrics: { signs },
      period: oneMinute,
      label: 'KMS Sign, % of the ECC quota',
    });
    this.alarm(
      'KmsSignQuota',
      percent,
      thresholds.kmsSignQuotaPercent,
      `KMS Sign above ${thresholds.kmsSignQuotaPercent}% of the account's ECC request quota (${quota}/s) in 3 of 5 minutes: throttling is near`,
      { periods: 5, breaching: 3 },
    );
  }

  private perFunction(
    title: string,
    functions: ReadonlyMap<string, IFunction>,
    metric: (fn: IFunction) => IMetric,
  ) {
    return new GraphWidget({ title, left: [...functions.values()].map(metric), width: 8 });
  }

  /** Aurora CPU, capacity (percent of the maximum ACU) and connections; graphs for the dashboard. */
  private databaseAlarms(dataPlane: DataPlane): GraphWidget[] {
    const cluster = dataPlane.cluster;
    const cpu = cluster.metricCPUUtilization({ period: fiveMinutes });
    const acu = cluster.metric('ACUUtilization', { period: fiveMinutes, statistic: 'Average' });
    const connections = cluster.metricDatabaseConnections({ period: fiveMinutes, statistic: 'Maximum' });
    this.alarm(
      'AuroraCpu',
      cpu,
      thresholds.auroraCpuPercent,
      'Aurora CPU above 80% for 15 minutes',
      sustained,
    );
    this.alarm(
      'AuroraCapacity',
      acu,
      thresholds.auroraAcuPercent,
      'Aurora above 90% of its maximum ACU for 15 minutes',
      sustained,
    );
    this.alarm(
      'AuroraConnections',
      connections,
      thresholds.auroraConnections,
      'Aurora connections above 400 for 15 minutes',
      sustained,
    );
    // RDS Proxy: clients it refused for their credentials (a rotation the functions did not follow), and
    // connections it could not open to the database (the database down, or its own secret out of date).
    const proxyMetric = (name: string, statistic = 'Sum') =>
      new Metric({
        namespace: 'AWS/RDS',
        metricName: name,
        dimensionsMap: { ProxyName: dataPlane.proxy.dbProxyName },
        statistic,
        period: fiveMinutes,
      });
    const refusedClients = proxyMetric('ClientConnectionsSetupFailedAuth');
    const failedToDatabase = proxyMetric('DatabaseConnectionsSetupFailed');
    this.alarm(
      'ProxyClientAuthFailures',
      refusedClients,
      0,
      'RDS Proxy refused client logins in two of 15 minutes',
      recurring,
    );
    this.alarm(
      'ProxyDatabaseConnectionFailures',
      failedToDatabase,
      0,
      'RDS Proxy could not connect to Aurora in two of 15 minutes',
      recurring,
    );
    // A pinned session keeps its database connection to one client until it ends: the pool stops pooling.
    const pinned = proxyMetric('DatabaseConnectionsCurrentlySessionPinned', 'Maximum');
    this.alarm(
      'ProxyPinnedSessions',
      pinned,
      thresholds.pinnedSessions,
      'RDS Proxy holds pinned sessions for 15 minutes (something sets session state)',
      sustained,
    );
    // The rotation functions (Secrets Manager's applications): an error is a rotation that did not complete.
    dataPlane.rotationFunctionNames.forEach((name, index) => {
      const errors = new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Errors',
        dimensionsMap: { FunctionName: name },
        statistic: 'Sum',
        period: fiveMinutes,
      });
      this.alarm(
        `SecretRotationErrors${index === 0 ? 'Master' : 'Login'}`,
        errors,
        0,
        `The ${index === 0 ? 'master' : 'login'} database secret's rotation failed`,
        once,
      );
    });
    return [
      new GraphWidget({ title: 'Aurora CPU % and ACU %', left: [cpu, acu], width: 8 }),
      new GraphWidget({ title: 'Aurora connections', left: [connections], width: 8 }),
    ];
  }
}

/** A function's errors, percent of its invocations; 0 in a period with too few to judge. */
function errorPercent(fn: IFunction): MathExpression {
  return new MathExpression({
    expression: `IF(invocations >= ${thresholds.minInvocations}, 100 * errors / invocations, 0)`,
    usingMetrics: {
      invocations: fn.metricInvocations({ period: fiveMinutes, statistic: 'Sum' }),
      errors: fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
    },
    period: fiveMinutes,
  });
}

/** A function's throttles, percent of its invocation attempts (Invocations counts only those that ran). */
function throttlePercent(fn: IFunction): MathExpression {
  return new MathExpression({
    expression: `IF(invocations + throttles >= ${thresholds.minInvocations}, 100 * throttles / (invocations + throttles), 0)`,
    usingMetrics: {
      invocations: fn.metricInvocations({ period: fiveMinutes, statistic: 'Sum' }),
      throttles: fn.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }),
    },
    period: fiveMinutes,
  });
}

function tableMetric(table: ITableV2, name: string, dimensions: Record<string, string> = {}): Metric {
  return new Metric({
    namespace: 'AWS/DynamoDB',
    metricName: name,
    dimensionsMap: { TableName: table.tableName, ...dimensions },
    statistic: 'Sum',
    period: fiveMinutes,
  });
}
