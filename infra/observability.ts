import { Duration } from 'aws-cdk-lib';
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
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
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
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Alarms', {
      displayName: `${props.name} platform alarms`,
      enforceSSL: true,
      // The AWS managed key: CloudWatch may publish to it without a key policy of ours.
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
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
