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
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { DataPlane } from './data-plane';

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
}

/** Thresholds of the alarms; docs/deploying.md explains each. */
export const thresholds = {
  serverErrorPercent: 1,
  p99LatencyMs: 3000,
  auroraCpuPercent: 80,
  auroraAcuPercent: 90,
  auroraConnections: 400,
} as const;

const fiveMinutes = Duration.minutes(5);

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
      'API 5xx responses above 1% of requests',
    );
    this.alarm('ApiLatencyP99', p99, thresholds.p99LatencyMs, 'API p99 latency above 3 s');

    for (const [group, fn] of props.functions) {
      this.alarm(`${group}Errors`, fn.metricErrors({ period: fiveMinutes }), 0, `${group} function errors`);
      this.alarm(`${group}Throttles`, fn.metricThrottles({ period: fiveMinutes }), 0, `${group} throttled`);
    }

    const dynamoThrottles = new MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: tableMetric(props.table, 'ReadThrottleEvents'),
        writes: tableMetric(props.table, 'WriteThrottleEvents'),
      },
      period: fiveMinutes,
      label: 'DynamoDB throttle events',
    });
    this.alarm('TableThrottles', dynamoThrottles, 0, 'DynamoDB requests throttled');

    if (props.stateMachine) {
      const machine = props.stateMachine;
      this.alarm(
        'UserCreationFailed',
        machine.metricFailed({ period: fiveMinutes, statistic: 'Sum' }),
        0,
        'PRE_USER_CREATE executions failed (a subscriber failed, or could not be invoked)',
      );
      this.alarm(
        'UserCreationTimedOut',
        machine.metricTimedOut({ period: fiveMinutes, statistic: 'Sum' }),
        0,
        'PRE_USER_CREATE executions timed out (EVENT_FUNCTION_TIMEOUT_SECONDS)',
      );
    }
    if (props.migrationFunction) {
      this.alarm(
        'MigrationErrors',
        props.migrationFunction.metricErrors({ period: fiveMinutes }),
        0,
        'The deploy-time migration step failed (the deployment rolls back)',
      );
    }

    if (props.deletionSweeper) {
      this.alarm(
        'DeletionSweeperErrors',
        props.deletionSweeper.metricErrors({ period: fiveMinutes }),
        0,
        'The deletion sweeper failed: deletions that answered 202 are left pending until a sweep succeeds',
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

  private alarm(id: string, metric: IMetric, threshold: number, description: string): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
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
    this.alarm('AuroraCpu', cpu, thresholds.auroraCpuPercent, 'Aurora CPU above 80%');
    this.alarm('AuroraCapacity', acu, thresholds.auroraAcuPercent, 'Aurora above 90% of its maximum ACU');
    this.alarm(
      'AuroraConnections',
      connections,
      thresholds.auroraConnections,
      'Aurora connections above 400',
    );
    // RDS Proxy: clients it refused for their credentials (a rotation the functions did not follow), and
    // connections it could not open to the database (the database down, or its own secret out of date).
    const proxyMetric = (name: string) =>
      new Metric({
        namespace: 'AWS/RDS',
        metricName: name,
        dimensionsMap: { ProxyName: dataPlane.proxy.dbProxyName },
        statistic: 'Sum',
        period: fiveMinutes,
      });
    const refusedClients = proxyMetric('ClientConnectionsSetupFailedAuth');
    const failedToDatabase = proxyMetric('DatabaseConnectionsSetupFailed');
    this.alarm('ProxyClientAuthFailures', refusedClients, 0, 'RDS Proxy refused client logins');
    this.alarm(
      'ProxyDatabaseConnectionFailures',
      failedToDatabase,
      0,
      'RDS Proxy could not connect to Aurora',
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
      );
    });
    return [
      new GraphWidget({ title: 'Aurora CPU % and ACU %', left: [cpu, acu], width: 8 }),
      new GraphWidget({ title: 'Aurora connections', left: [connections], width: 8 }),
    ];
  }
}

function tableMetric(table: ITableV2, name: string): Metric {
  return new Metric({
    namespace: 'AWS/DynamoDB',
    metricName: name,
    dimensionsMap: { TableName: table.tableName },
    statistic: 'Sum',
    period: fiveMinutes,
  });
}
