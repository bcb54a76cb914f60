import { CfnResource, Duration, type RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { Architecture, LoggingFormat, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Trigger } from 'aws-cdk-lib/triggers';
import { Construct, type IConstruct } from 'constructs';
import { esmBanner, lambdaRuntime, localOnly, nodeTarget } from './bundling';
import { type DataPlane, databaseName } from './data-plane';
import { functionRole } from './function-role';

/** The id of CDK's singleton trigger provider (aws-cdk-lib/triggers) in the stack. */
const triggerProviderId = 'AWSCDK.TriggerCustomResourceProviderCustomResourceProvider';

/** How long a migration statement waits for a lock before it fails (PostgreSQL's lock_timeout). */
export const migrationLockTimeoutMs = 5000;

export interface MigrationProps {
  readonly dataPlane: DataPlane;
  readonly logRetention: RetentionDays;
  readonly logRemoval: RemovalPolicy;
}

/**
 * The deploy-time database step: a Lambda in the VPC (functions/migrate/handler.ts) that a CDK Trigger invokes
 * during each deployment whose code changed, after the cluster and proxy exist and before the functions that use
 * SQL are updated. It alone may read the master secret.
 */
export class Migration extends Construct {
  readonly function: NodejsFunction;
  readonly trigger: Trigger;

  constructor(scope: Construct, id: string, props: MigrationProps) {
    super(scope, id);
    const { dataPlane } = props;
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemoval,
    });
    this.function = new NodejsFunction(this, 'Function', {
      entry: 'functions/migrate/handler.ts',
      handler: 'handler',
      description: 'Deploy time: creates the database login role and applies the SQL migrations',
      runtime: lambdaRuntime,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.minutes(5),
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      role: functionRole(this, 'Role', logGroup, true),
      environment: {
        DATABASE_HOST: dataPlane.proxy.endpoint,
        DATABASE_PORT: String(dataPlane.port),
        DATABASE_NAME: databaseName,
        DATABASE_SSL: 'verify-full',
        MASTER_SECRET_ARN: dataPlane.secret.secretArn,
        LOGIN_SECRET_ARN: dataPlane.loginSecret.secretArn,
        HEALTH_SECRET_ARN: dataPlane.healthSecret.secretArn,
        // A migration waits this long for a table's lock, then fails the deployment (rolled back) rather than
        // queueing every request behind it (docs/deploying.md, "Migrations").
        MIGRATION_LOCK_TIMEOUT_MS: String(migrationLockTimeoutMs),
      },
      ...dataPlane.functionPlacement(),
      // The same esbuild options as the endpoint groups (infra/bundling.ts); no run-time assets.
      bundling: {
        format: OutputFormat.ESM,
        target: nodeTarget,
        minify: true,
        sourceMap: true,
        mainFields: ['module', 'main'],
        banner: esmBanner,
        externalModules: localOnly,
      },
    });
    dataPlane.secret.grantRead(this.function);
    dataPlane.loginSecret.grantRead(this.function);
    dataPlane.healthSecret.grantRead(this.function);
    this.trigger = new Trigger(this, 'Run', {
      handler: this.function,
      // The proxy (with its target group) comes after the cluster and its writer; not the whole cluster
      // construct, which also holds the login rotation that must wait for this step.
      executeAfter: [dataPlane.proxy],
      executeOnHandlerChange: true,
      timeout: Duration.minutes(5),
    });
  }

  /**
   * The log group of CDK's trigger provider (the singleton function that invokes the step at deploy time): the
   * provider's function has no log group setting, so its Lambda resource is pointed at one the stack creates with
   * the stage's retention (`LoggingConfig`), instead of Lambda creating `/aws/lambda/<name>` that never expires.
   */
  logTriggerProvider(stack: Stack, retention: RetentionDays, removalPolicy: RemovalPolicy): LogGroup {
    const provider = stack.node.tryFindChild(triggerProviderId);
    const handler = provider?.node.tryFindChild('Handler');
    if (!(handler instanceof CfnResource) || handler.cfnResourceType !== 'AWS::Lambda::Function')
      throw new Error(`No ${triggerProviderId} function in the stack: CDK's trigger provider changed`);
    const logs = new LogGroup(this, 'TriggerProviderLogs', { retention, removalPolicy });
    handler.addPropertyOverride('LoggingConfig', { LogGroup: logs.logGroupName });
    handler.node.addDependency(logs);
    return logs;
  }

  /** Runs the step before these are created or updated (the functions that use SQL). */
  before(...scopes: IConstruct[]): void {
    this.trigger.executeBefore(...(scopes as Construct[]));
  }
}
