import { Duration, Names, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpointAwsService,
  IpAddresses,
  Peer,
  Port,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  AuroraPostgresEngineVersion,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
  type DatabaseProxy,
  DatabaseSecret,
  ParameterGroup,
  PerformanceInsightRetention,
} from 'aws-cdk-lib/aws-rds';
import { type ISecret, SecretRotation, SecretRotationApplication } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';

export interface DataPlaneProps {
  /** Refuse to delete the cluster; keep a snapshot when the stack goes (default true). */
  readonly deletionProtection?: boolean;
  /** Aurora capacity units (ACU) of the Serverless v2 writer (defaults 0.5 to 4). */
  readonly minCapacity?: number;
  readonly maxCapacity?: number;
  /** Availability zones of the VPC (default 2: the least Aurora and RDS Proxy accept). */
  readonly maxAzs?: number;
  /** A Serverless v2 reader in promotion tier 1 (scales with the writer): a failure is a failover (default false). */
  readonly reader?: boolean;
  /** Days of Aurora's automated backups (point-in-time restore window; default 7, at most 35). */
  readonly backupRetentionDays?: number;
  /** Retention and removal of the flow logs, the exported PostgreSQL logs and the rotation functions' logs. */
  readonly logRetention?: RetentionDays;
  readonly logRemoval?: RemovalPolicy;
}

/** The database the platform creates in the cluster. */
export const databaseName = 'platform';
/** The master user RDS generates the secret for: the deploy-time migration step alone connects as it. */
export const databaseUser = 'platform_admin';
/** The functions' login role (created by the migration step): no superuser powers, owns the site schemas. */
export const loginUser = 'platform_app';
/** The meta function's login (created by the migration step): may read the applied migration version, nothing else. */
export const healthUser = 'platform_health';

/**
 * The cluster's identifier, fixed (from the stack name) rather than generated, so that the stack can create the log
 * group Aurora exports its PostgreSQL log to (`/aws/rds/cluster/<identifier>/postgresql`) with its retention,
 * instead of CDK's log-retention helper function adjusting the group Aurora creates.
 */
export function clusterIdentifier(stackName: string): string {
  return `${stackName}-database`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63);
}

const postgresPort = 5432;

/** The cluster parameter group's settings (docs/deploying.md, "Aurora"). */
export const clusterParameters = {
  logMinDurationStatementMs: 1000,
  idleInTransactionSessionTimeoutMs: 60_000,
} as const;

/**
 * The data plane (table catalog, records): Aurora PostgreSQL Serverless v2 in the isolated subnets of its own VPC,
 * credentials generated into Secrets Manager, and an RDS Proxy in front (Lambda opens many short-lived
 * connections; the proxy pools them). Functions that use SQL run in the same isolated subnets with a security
 * group that may reach the proxy and HTTPS only; the proxy accepts them alone and the database accepts the proxy
 * alone. With no NAT, the functions reach AWS services through VPC endpoints: DynamoDB (gateway), KMS and Secrets
 * Manager (interface).
 */
export class DataPlane extends Construct {
  readonly vpc: Vpc;
  readonly cluster: DatabaseCluster;
  readonly proxy: DatabaseProxy;
  /** The master user's credentials (migration step and rotation only). */
  readonly secret: ISecret;
  /** The functions' login role's credentials. */
  readonly loginSecret: DatabaseSecret;
  /** The meta function's read-only login (the health check). */
  readonly healthSecret: DatabaseSecret;
  /** The names of the two rotation functions (master, login): their errors are alarmed on. */
  readonly rotationFunctionNames: string[] = [];
  /** The log group of the cluster's PostgreSQL log. */
  readonly databaseLogs: LogGroup;
  /** Attached to every function that uses SQL. */
  readonly functionSecurityGroup: SecurityGroup;
  readonly proxySecurityGroup: SecurityGroup;
  readonly databaseSecurityGroup: SecurityGroup;
  readonly port = postgresPort;
  private readonly rotationGroup: SecurityGroup;
  private readonly rotations: SecretRotation[] = [];
  readonly subnets: SubnetSelection = { subnetType: SubnetType.PRIVATE_ISOLATED };

  constructor(scope: Construct, id: string, props: DataPlaneProps = {}) {
    super(scope, id);
    const protect = props.deletionProtection ?? true;

    this.vpc = new Vpc(this, 'Vpc', {
      ipAddresses: IpAddresses.cidr('10.40.0.0/16'),
      maxAzs: props.maxAzs ?? 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'data', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 22 }],
    });
    // Rejected traffic only: enough to see what the security groups refuse, at a fraction of logging it all.
    this.vpc.addFlowLog('FlowLog', {
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, 'FlowLogs', {
          retention: props.logRetention ?? RetentionDays.ONE_MONTH,
          removalPolicy: props.logRemoval ?? RemovalPolicy.RETAIN,
        }),
      ),
      trafficType: FlowLogTrafficType.REJECT,
    });

    this.functionSecurityGroup = new SecurityGroup(this, 'FunctionSecurityGroup', {
      vpc: this.vpc,
      description: 'Functions that use SQL: the RDS Proxy and HTTPS (VPC endpoints) only',
      allowAllOutbound: false,
    });
    this.proxySecurityGroup = new SecurityGroup(this, 'ProxySecurityGroup', {
      vpc: this.vpc,
      description: 'RDS Proxy: from the SQL functions, to the database',
      allowAllOutbound: false,
    });
    this.databaseSecurityGroup = new SecurityGroup(this, 'DatabaseSecurityGroup', {
      vpc: this.vpc,
      description: 'Aurora PostgreSQL: from the RDS Proxy only',
      allowAllOutbound: false,
    });
    const endpointSecurityGroup = new SecurityGroup(this, 'EndpointSecurityGroup', {
      vpc: this.vpc,
      description: 'Interface VPC endpoints: HTTPS from the SQL functions',
      allowAllOutbound: false,
    });

    const pg = Port.tcp(postgresPort);
    this.functionSecurityGroup.addEgressRule(this.proxySecurityGroup, pg, 'PostgreSQL to the RDS Proxy');
    // The subnets have no route out of the VPC: HTTPS can only reach the VPC endpoints (DynamoDB's gateway
    // endpoint answers on public addresses, hence any IPv4 rather than the endpoint group alone).
    this.functionSecurityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS to the VPC endpoints');
    this.proxySecurityGroup.addIngressRule(
      this.functionSecurityGroup,
      pg,
      'PostgreSQL from the SQL functions',
    );
    // Proxy to database: `addProxy` below opens the cluster port from the proxy's group, and nothing else.
    endpointSecurityGroup.addIngressRule(
      this.functionSecurityGroup,
      Port.tcp(443),
      'HTTPS from the SQL functions',
    );

    this.vpc.addGatewayEndpoint('DynamoDb', {
      service: GatewayVpcEndpointAwsService.DYNAMODB,
      subnets: [this.subnets],
    });
    // What the functions here call besides DynamoDB: KMS (the JWT keys' public halves) and Secrets Manager (their
    // database login). No function here creates users or invokes one (the accounts function left the VPC: the
    // deletion sweeper runs the deletions' SQL), so no Step Functions or Lambda endpoint (about $29 a month each).
    for (const [name, service] of [
      ['Kms', InterfaceVpcEndpointAwsService.KMS],
      ['SecretsManager', InterfaceVpcEndpointAwsService.SECRETS_MANAGER],
    ] as const) {
      this.vpc.addInterfaceEndpoint(name, {
        service,
        subnets: this.subnets,
        securityGroups: [endpointSecurityGroup],
        privateDnsEnabled: true,
        // Only the rule above: not the whole VPC.
        open: false,
      });
    }

    const identifier = clusterIdentifier(Stack.of(this).stackName);
    const engine = DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_16_4 });
    // Statements slower than a second are logged (with their duration), and a session left idle inside a
    // transaction is ended after a minute, releasing its locks and its proxy connection (docs/deploying.md).
    const parameterGroup = new ParameterGroup(this, 'ClusterParameters', {
      engine,
      description: 'Platform cluster: slow statements logged, idle transactions ended',
      parameters: {
        log_min_duration_statement: String(clusterParameters.logMinDurationStatementMs),
        idle_in_transaction_session_timeout: String(clusterParameters.idleInTransactionSessionTimeoutMs),
      },
    });
    // Created before the cluster, so that Aurora writes into it rather than creating it without a retention.
    this.databaseLogs = new LogGroup(this, 'PostgresqlLogs', {
      logGroupName: `/aws/rds/cluster/${identifier}/postgresql`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemoval ?? RemovalPolicy.RETAIN,
    });
    this.cluster = new DatabaseCluster(this, 'Cluster', {
      clusterIdentifier: identifier,
      engine,
      parameterGroup,
      credentials: Credentials.fromGeneratedSecret(databaseUser),
      defaultDatabaseName: databaseName,
      writer: ClusterInstance.serverlessV2('Writer', { enablePerformanceInsights: true }),
      // Promotion tier 1 (scaleWithWriter): sized like the writer, so it can take over at the writer's load.
      readers: props.reader
        ? [ClusterInstance.serverlessV2('Reader', { scaleWithWriter: true, enablePerformanceInsights: true })]
        : [],
      // Top statements and waits, 7 days (the free tier).
      enablePerformanceInsights: true,
      performanceInsightRetention: PerformanceInsightRetention.DEFAULT,
      serverlessV2MinCapacity: props.minCapacity ?? 0.5,
      serverlessV2MaxCapacity: props.maxCapacity ?? 4,
      vpc: this.vpc,
      vpcSubnets: this.subnets,
      securityGroups: [this.databaseSecurityGroup],
      port: postgresPort,
      storageEncrypted: true,
      iamAuthentication: false,
      backup: { retention: Duration.days(props.backupRetentionDays ?? 7) },
      cloudwatchLogsExports: ['postgresql'],
      deletionProtection: protect,
      removalPolicy: protect ? RemovalPolicy.SNAPSHOT : RemovalPolicy.DESTROY,
    });
    if (!this.cluster.secret) throw new Error('The cluster has no generated secret');
    this.secret = this.cluster.secret;
    // Secrets Manager's single-user rotation, in the VPC (it reaches the database and the Secrets Manager
    // endpoint); RDS Proxy reads the secret for each new connection, so a rotation needs no redeploy.
    this.rotationGroup = this.rotationSecurityGroup(endpointSecurityGroup, pg);
    this.cluster.node.addDependency(this.databaseLogs);
    const masterRotation = this.cluster.addRotationSingleUser({
      automaticallyAfter: Duration.days(30),
      securityGroup: this.rotationGroup,
    });
    this.rotationFunctionNames.push(rotationFunctionName(masterRotation));
    this.rotations.push(masterRotation);

    this.loginSecret = new DatabaseSecret(this, 'LoginSecret', {
      username: loginUser,
      masterSecret: this.secret,
    });
    const loginAttached = this.loginSecret.attach(this.cluster);
    this.healthSecret = new DatabaseSecret(this, 'HealthSecret', {
      username: healthUser,
      masterSecret: this.secret,
    });
    const healthAttached = this.healthSecret.attach(this.cluster);

    this.proxy = this.cluster.addProxy('Proxy', {
      // Proxy names are unique per account and region: derive it from the construct path.
      dbProxyName: Names.uniqueResourceName(this, { maxLength: 60 }),
      secrets: [this.secret, loginAttached, healthAttached],
      vpc: this.vpc,
      vpcSubnets: this.subnets,
      securityGroups: [this.proxySecurityGroup],
      requireTLS: true,
      idleClientTimeout: Duration.minutes(10),
      maxConnectionsPercent: 90,
      borrowTimeout: Duration.seconds(10),
    });
  }

  /** The rotation function's group: PostgreSQL to the database and HTTPS to the Secrets Manager endpoint. */
  private rotationSecurityGroup(endpoints: SecurityGroup, pg: Port): SecurityGroup {
    const group = new SecurityGroup(this, 'RotationSecurityGroup', {
      vpc: this.vpc,
      description: 'Secret rotation: PostgreSQL to the database, HTTPS to the VPC endpoints',
      allowAllOutbound: false,
    });
    group.addEgressRule(this.databaseSecurityGroup, pg, 'PostgreSQL to the database');
    group.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS to the VPC endpoints');
    this.databaseSecurityGroup.addIngressRule(group, pg, 'PostgreSQL from the secret rotation');
    endpoints.addIngressRule(group, Port.tcp(443), 'HTTPS from the secret rotation');
    return group;
  }

  /**
   * What a SQL function needs besides its VPC placement: where the proxy is and which secret holds the
   * credentials (read once per container; TLS required by the proxy).
   */
  environment(login: 'app' | 'health' = 'app'): Record<string, string> {
    const health = login === 'health';
    return {
      DATABASE_HOST: this.proxy.endpoint,
      DATABASE_PORT: String(postgresPort),
      DATABASE_NAME: databaseName,
      DATABASE_USER: health ? healthUser : loginUser,
      DATABASE_SECRET_ARN: (health ? this.healthSecret : this.loginSecret).secretArn,
      DATABASE_SSL: 'verify-full',
    };
  }

  /** The VPC placement of a SQL function (passed to its constructor). */
  functionPlacement() {
    return { vpc: this.vpc, vpcSubnets: this.subnets, securityGroups: [this.functionSecurityGroup] };
  }

  /** Lets a function read its login's credentials (never the master's). */
  grantConnect(fn: IFunction, login: 'app' | 'health' = 'app'): void {
    (login === 'health' ? this.healthSecret : this.loginSecret).grantRead(fn);
  }

  /**
   * Rotates the login role's password as the role itself (Secrets Manager's single-user rotation), once the
   * migration step has created the role. Single-user, not alternating users: the secret keeps naming
   * `platform_app`, the role that owns every site schema, which the functions log in as (a clone user would own
   * nothing, and RDS Proxy would refuse the functions' fixed user name with the clone's password). The health login
   * is read-only and re-passworded by every migration run; it is not rotated on a schedule.
   */
  rotateLogin(after: IConstruct): void {
    const rotation = new SecretRotation(this, 'LoginRotation', {
      application: SecretRotationApplication.POSTGRES_ROTATION_SINGLE_USER,
      secret: this.loginSecret,
      target: this.cluster,
      vpc: this.vpc,
      vpcSubnets: this.subnets,
      securityGroup: this.rotationGroup,
      automaticallyAfter: Duration.days(30),
    });
    rotation.node.addDependency(after);
    this.rotationFunctionNames.push(rotationFunctionName(rotation));
    this.rotations.push(rotation);
  }

  /**
   * The rotation functions' log groups (`/aws/lambda/<name>`), created before the rotation applications with the
   * stage's retention: Secrets Manager's applications would otherwise let Lambda create them, never expiring.
   */
  createRotationLogGroups(retention: RetentionDays, removalPolicy: RemovalPolicy): void {
    this.rotations.forEach((rotation, index) => {
      const logs = new LogGroup(this, `RotationLogs${index === 0 ? 'Master' : 'Login'}`, {
        logGroupName: `/aws/lambda/${this.rotationFunctionNames[index]}`,
        retention,
        removalPolicy,
      });
      rotation.node.addDependency(logs);
    });
  }
}

/** The name CDK gives a rotation's function (the last 64 characters of the construct's unique id). */
function rotationFunctionName(rotation: SecretRotation): string {
  const id = Names.uniqueId(rotation);
  return id.substring(Math.max(id.length - 64, 0));
}
