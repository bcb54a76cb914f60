import {
  Aws,
  CfnOutput,
  CfnRule,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Tags,
  Token,
} from 'aws-cdk-lib';
import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { groups, routesOf, routes as routeTable } from '../functions/groups';
import type { GroupManifest } from '../shared/api/group';
import type { GroupName } from '../shared/api/route';
import { deletionRoutes } from '../shared/lifecycle/routes';
import { indexes, tableKeys, ttlAttribute } from '../shared/store/table';
import { acknowledgeFindings } from './acknowledgements';
import { type CustomDomain, PlatformApi, type Throttle } from './api';
import { gatewayRoutes, isolatedGatewayPaths } from './api-routes';
import { Backups } from './backups';
import { groupCode, lambdaRuntime } from './bundling';
import { defaultAccountConcurrency, sweeperConcurrency } from './concurrency';
import { DataPlane } from './data-plane';
import { DeletionSweeper } from './deletions';
import { UserCreationEvents } from './events';
import { functionRole } from './function-role';
import { defaultJwtKeys, type JwtKeySettings, JwtKeys } from './jwt-keys';
import { Migration } from './migration';
import { Observability } from './observability';
import { createSecretsKey, grantSecretsKey } from './secrets-key';
import { grantTableAccess } from './table-access';
import { defaultStageThrottle, routeThrottles } from './throttling';

export interface PlatformStackProps extends StackProps {
  /** The stage (dev, prod, ...): named in tags and resource names, so stages can share an account. */
  readonly stage?: string;
  /** Refuse to delete the control-plane table (default true). */
  readonly deletionProtection?: boolean;
  /** Default site for single-tenant installs. */
  readonly defaultSite?: string;
  /** Sites are resolved from `{site}.{baseDomain}` host names. */
  readonly baseDomain?: string;
  /** Origins whose browser apps may call the API; the same setting and default as the local CORS_ORIGINS. */
  readonly corsOrigins?: readonly string[];
  /**
   * Verified SES identity (an e-mail address) that sends invitation e-mail; without it the functions that send
   * mail (the invitations function) have no mail permission and write nothing (the local outbox is for development).
   */
  readonly mailSender?: string;
  /** Base URL of the invitation acceptance page (INVITATION_LINK_BASE). */
  readonly invitationLinkBase?: string;
  /** The API's custom domain (and the default JWT issuer). */
  readonly domain?: CustomDomain;
  /**
   * The JWT issuer (`iss`). Default: the custom domain's URL, else the execute-api URL (which changes when a
   * domain is added later, signing everyone out: set one of the two before going live).
   */
  readonly issuer?: string;
  /** Stage-wide throttling (default infra/throttling.ts). */
  readonly throttle?: Throttle;
  /** Reserved concurrency per group: a cap, so a runaway group cannot take the account's whole concurrency. */
  readonly reservedConcurrency?: Partial<Record<GroupName, number>>;
  /**
   * Retention of every log group the stack creates or implies: the functions', the rotation and trigger provider
   * functions', the state machine's, the access, flow and PostgreSQL logs (default one month; `logRetentionDays`,
   * a year in production).
   */
  readonly logRetention?: RetentionDays;
  /** Days back both stores can be restored: Aurora's backups and DynamoDB's point-in-time recovery (default 7). */
  readonly backupRetentionDays?: number;
  /**
   * The vault AWS Backup copies each recovery point to (another account's, ideally); default a second vault in
   * this stack. The plan exists on a protected stage only (infra/backups.ts).
   */
  readonly backupCopyVaultArn?: string;
  /** The account's Lambda concurrency quota (default 1000): the concurrency alarms' scale. */
  readonly accountConcurrency?: number;
  /** The account's KMS "Cryptographic operations (ECC) request rate" quota per second (default 300). */
  readonly kmsEccQuota?: number;
  /** A reader instance in promotion tier 1 beside the writer (production), so a failure is a failover. */
  readonly databaseReader?: boolean;
  /** `--enable-source-maps` in the functions' NODE_OPTIONS (default true; false in production). */
  readonly sourceMaps?: boolean;
  /** Subscribed to the alarm topic. */
  readonly alarmEmail?: string;
  /** Aurora capacity range in ACU (default 0.5 to 4). */
  readonly databaseCapacity?: { min: number; max: number };
  /** Event subscribers: the name prefix (default `tenant-fn-`) and account of the Lambda functions tenants may register. */
  readonly eventFunctions?: { prefix?: string; account?: string; timeoutSeconds?: number };
  /**
   * EVENT_FUNCTION_TIMEOUT_SECONDS: the whole PRE_USER_CREATE execution's limit (default 10, at most 25, so
   * that user creation answers within the API's 29 s); the same setting and meaning as the local runner's.
   */
  readonly userCreationHookTimeoutSeconds?: number;
  /** Which JWT key generation signs, and which others are published (default: key 1 alone; infra/jwt-keys.ts). */
  readonly jwtKeys?: JwtKeySettings;
}

/**
 * The platform in the cloud: an HTTP API whose routes come from the route table, one Lambda per endpoint group,
 * the control-plane DynamoDB table and the JWT signing key.
 */
export class PlatformStack extends Stack {
  readonly api: HttpApi;
  readonly platformApi: PlatformApi;
  readonly table: TableV2;
  /** The key that signs JWTs now (`jwtKeys.signing`). */
  readonly signingKey: Key;
  /** The signing key and the keys published beside it during a rotation. */
  readonly jwtKeys: JwtKeys;
  /** Wraps the data keys of the secret store and of social apps' client secrets (secrets and auth functions). */
  readonly secretsKey: Key;
  readonly functions: ReadonlyMap<GroupName, NodejsFunction>;
  /** The PRE_USER_CREATE state machine and the subscriber functions' ARN pattern. */
  readonly userCreationEvents: UserCreationEvents;
  /** Aurora PostgreSQL behind RDS Proxy, when some group uses SQL. */
  readonly dataPlane: DataPlane | undefined;
  readonly observability: Observability;
  /** Finishes pending deletions with no request (docs/lifecycle.md), with the data plane. */
  readonly deletionSweeper: DeletionSweeper | undefined;
  /** The deploy-time database step, with the data plane. */
  readonly migration: Migration | undefined;
  /** The JWT issuer every function is configured with. */
  readonly issuer: string;
  /** Whether the table, cluster, keys and logs are protected (the deletionProtection setting). */
  readonly deletionProtection: boolean;
  /** The AWS Backup plan with its copy to a second vault, on a protected stage. */
  readonly backups: Backups | undefined;

  constructor(scope: Construct, id: string, props: PlatformStackProps = {}) {
    super(scope, id, props);
    const protect = props.deletionProtection ?? true;
    this.deletionProtection = protect;
    const stage = props.stage ?? 'dev';
    // Logs are kept like the data they describe: a protected stage retains them when the stack goes.
    const logRemoval = protect ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const backupDays = props.backupRetentionDays ?? 7;
    if (props.domain) assertCertificateRegion(this, props.domain.certificateArn);
    Tags.of(this).add('Project', 'tenantbase');
    Tags.of(this).add('Stage', stage);

    this.table = new TableV2(this, 'ControlPlane', {
      partitionKey: { name: tableKeys.partition, type: AttributeType.STRING },
      sortKey: { name: tableKeys.sort, type: AttributeType.STRING },
      globalSecondaryIndexes: indexes.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partition, type: AttributeType.STRING },
        sortKey: { name: index.sort, type: AttributeType.STRING },
      })),
      billing: Billing.onDemand(),
      // The same window as Aurora's backups (backupRetentionDays), so both restore to any moment of it.
      pointInTimeRecoverySpecification: {
        pointInTimeRecoveryEnabled: true,
        recoveryPeriodInDays: backupDays,
      },
      timeToLiveAttribute: ttlAttribute,
      deletionProtection: protect,
      removalPolicy: protect ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.jwtKeys = new JwtKeys(this, props.jwtKeys ?? defaultJwtKeys, protect);
    this.signingKey = this.jwtKeys.signing;

    this.secretsKey = createSecretsKey(this, protect);

    this.platformApi = new PlatformApi(this, 'Http', {
      corsOrigins: props.corsOrigins,
      throttle: props.throttle ?? defaultStageThrottle,
      domain: props.domain,
      logRetention,
      removalPolicy: logRemoval,
    });
    this.api = this.platformApi.api;
    this.issuer = props.issuer ?? this.platformApi.url;

    const sqlGroups = Object.values(groups).filter(
      (group) => group.needs.sql && routesOf(group.name).length > 0,
    );
    this.dataPlane =
      sqlGroups.length > 0
        ? new DataPlane(this, 'DataPlane', {
            deletionProtection: protect,
            minCapacity: props.databaseCapacity?.min,
            maxCapacity: props.databaseCapacity?.max,
            reader: props.databaseReader ?? false,
            backupRetentionDays: backupDays,
            logRetention,
            logRemoval,
          })
        : undefined;
    // Each group's function gets what its manifest's `needs` name (functions/<group>/manifest.ts), and no more.
    const sqlAccess = (group: GroupManifest) => (group.needs.sql ? this.dataPlane : undefined);
    const loginOf = (group: GroupManifest) => group.needs.sql ?? 'app';

    // What every function's configuration needs (shared/config.ts): the table and the JWT settings.
    const common: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      ...this.jwtKeys.environment(),
      JWT_ISSUER: this.issuer,
      // Stack traces through the bundles' source maps: parsing the maps is cold-start time, so not in production.
      ...((props.sourceMaps ?? true) ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
    };
    const gateway = gatewayRoutes(routeTable, Object.keys(routeThrottles));
    const created = new Map<string, HttpRoute>();
    const functions = new Map<GroupName, NodejsFunction>();
    for (const group of Object.values(groups)) {
      const routes = routesOf(group.name);
      if (routes.length === 0) continue;
      const logGroup = new LogGroup(this, `${pascal(group.name)}Logs`, {
        retention: logRetention,
        removalPolicy: logRemoval,
      });
      const fn = new NodejsFunction(this, `${pascal(group.name)}Function`, {
        // Bundled by infra/bundling.ts (code split, the same bundle as `npm run build`), not by the construct.
        code: groupCode(group.name),
        handler: 'index.handler',
        description: group.description,
        runtime: lambdaRuntime,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout: Duration.seconds(29),
        logGroup,
        role: functionRole(this, `${pascal(group.name)}Role`, logGroup, sqlAccess(group) !== undefined),
        loggingFormat: LoggingFormat.JSON,
        applicationLogLevelV2: ApplicationLogLevel.INFO,
        systemLogLevelV2: SystemLogLevel.WARN,
        tracing: Tracing.ACTIVE,
        reservedConcurrentExecutions: props.reservedConcurrency?.[group.name],
        environment: {
          ...common,
          ...(props.defaultSite ? { DEFAULT_SITE: props.defaultSite } : {}),
          ...(props.baseDomain ? { BASE_DOMAIN: props.baseDomain } : {}),
          ...sqlAccess(group)?.environment(loginOf(group)),
          ...(group.needs.secretsKey ? { SECRETS_KEY_ID: this.secretsKey.keyArn } : {}),
          ...(group.needs.mail ? mailEnvironment(props) : {}),
        },
        ...sqlAccess(group)?.functionPlacement(),
      });
      grantTableAccess(this.table, fn, group.needs.table);
      // Every group verifies tokens (public keys); only the one that signs them may sign.
      this.jwtKeys.grant(fn, group.needs.signsTokens === true);
      if (group.needs.secretsKey) grantSecretsKey(this.secretsKey, fn, group.needs.secretsKey);
      sqlAccess(group)?.grantConnect(fn, loginOf(group));
      if (group.needs.mail && props.mailSender) fn.addToRolePolicy(this.sendMailAs(props.mailSender));

      const integration = new HttpLambdaIntegration(`${pascal(group.name)}Integration`, fn);
      // ANY on the group's prefixes: the Lambda's router matches the exact path and method (404/405 bodies).
      for (const { path } of gateway.filter((route) => route.group === group.name)) {
        const route = new HttpRoute(this, `Route ANY ${path}`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(path, HttpMethod.ANY),
          integration,
        });
        created.set(`ANY ${path}`, route);
      }
      functions.set(group.name, fn);
    }
    this.functions = functions;
    this.deletionSweeper = this.dataPlane
      ? this.wireDeletionSweeper(this.dataPlane, common, logRetention, logRemoval)
      : undefined;
    this.userCreationEvents = this.wireUserCreationEvents(props, logRetention, logRemoval);
    if (this.dataPlane) {
      this.migration = new Migration(this, 'Migration', {
        dataPlane: this.dataPlane,
        logRetention,
        logRemoval,
      });
      this.migration.before(
        ...sqlGroups.flatMap((group) => functions.get(group.name) ?? []),
        ...(this.deletionSweeper ? [this.deletionSweeper.function] : []),
      );
      this.dataPlane.rotateLogin(this.migration.trigger);
      this.dataPlane.createRotationLogGroups(logRetention, logRemoval);
      this.migration.logTriggerProvider(this, logRetention, logRemoval);
    }
    this.backups = protect
      ? new Backups(this, 'Backups', {
          table: this.table,
          cluster: this.dataPlane?.cluster,
          retentionDays: backupDays,
          copyVaultArn: props.backupCopyVaultArn,
        })
      : undefined;
    this.platformApi.limitRoutes(created, routeLimits());

    this.observability = new Observability(this, 'Observability', {
      api: this.api,
      functions,
      table: this.table,
      dataPlane: this.dataPlane,
      alarmEmail: props.alarmEmail,
      name: this.stackName,
      stateMachine: this.userCreationEvents.stateMachine,
      migrationFunction: this.migration?.function,
      deletionSweeper: this.deletionSweeper?.function,
      accountConcurrency: props.accountConcurrency ?? defaultAccountConcurrency,
      reservedConcurrency:
        Object.values(props.reservedConcurrency ?? {}).reduce((sum, count) => sum + count, 0) +
        (this.deletionSweeper ? sweeperConcurrency : 0),
      signingKey: this.signingKey,
      kmsEccQuota: props.kmsEccQuota,
    });
    acknowledgeFindings(this, {
      functions: [
        ...this.functions.values(),
        ...(this.migration ? [this.migration.function] : []),
        ...(this.deletionSweeper ? [this.deletionSweeper.function] : []),
      ],
      dataPlane: this.dataPlane,
      deletionProtection: this.deletionProtection,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.platformApi.url });
    // With a custom domain the execute-api endpoint is disabled (infra/api.ts): the domain is the only way in.
    if (!this.platformApi.domain) new CfnOutput(this, 'ExecuteApiUrl', { value: this.api.apiEndpoint });
    new CfnOutput(this, 'JwtIssuer', { value: this.issuer });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'AlarmTopic', { value: this.observability.topic.topicArn });
    if (this.platformApi.domain) {
      new CfnOutput(this, 'DomainTarget', {
        value: this.platformApi.domain.regionalDomainName,
        description: 'Point a CNAME (or an alias) of the custom domain here',
      });
    }
  }

  /**
   * The deletion sweeper (infra/deletions.ts), in the VPC with the app's login; the functions that serve deletions
   * (the groups of shared/lifecycle/routes.ts) hand a 202 deletion over to it.
   */
  private wireDeletionSweeper(
    dataPlane: DataPlane,
    environment: Record<string, string>,
    logRetention: RetentionDays,
    logRemoval: RemovalPolicy,
  ): DeletionSweeper {
    const sweeper = new DeletionSweeper(this, 'Deletions', {
      table: this.table,
      dataPlane,
      environment,
      logRetention,
      logRemoval,
    });
    for (const group of new Set(deletionRoutes.map((route) => route.group))) {
      const fn = this.functions.get(group);
      if (fn) sweeper.grantHandOff(fn);
    }
    return sweeper;
  }

  /** The PRE_USER_CREATE state machine; the functions that create users may start it (infra/events.ts). */
  private wireUserCreationEvents(
    props: PlatformStackProps,
    logRetention: RetentionDays,
    logRemoval: RemovalPolicy,
  ): UserCreationEvents {
    const events = new UserCreationEvents(this, 'UserCreationEvents', {
      functionPrefix: props.eventFunctions?.prefix ?? 'tenant-fn-',
      functionAccount: props.eventFunctions?.account,
      timeoutSeconds: props.eventFunctions?.timeoutSeconds,
      executionTimeoutSeconds: props.userCreationHookTimeoutSeconds,
      logRetention,
      logRemoval,
    });
    // The groups that create users publish (and check targets); the registry of event functions checks names.
    for (const group of Object.values(groups)) {
      const fn = this.functions.get(group.name);
      if (!fn) continue;
      if (group.needs.createsUsers) events.grantPublish(fn);
      else if (group.needs.registersEventFunctions) events.configureRegistry(fn);
    }
    return events;
  }

  /** ses:SendEmail on the sender's identity (the address, or its domain) only, and only from that address. */
  private sendMailAs(sender: string): PolicyStatement {
    const domain = sender.split('@')[1] ?? sender;
    const identity = (name: string) =>
      this.formatArn({ service: 'ses', resource: 'identity', resourceName: name });
    return new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [identity(sender), identity(domain)],
      conditions: { StringEquals: { 'ses:FromAddress': sender } },
    });
  }
}

/**
 * An API Gateway custom domain needs its ACM certificate in the stack's own region: a certificate of another region
 * fails the deployment half-way, or (with a deployer's other default region) comes with a second, empty stage.
 * Refused at synthesis when the stack's region is known; an environment-agnostic stack gets a template rule
 * instead, so CloudFormation refuses the change set in any other region.
 */
function assertCertificateRegion(stack: Stack, certificateArn: string): void {
  const region = certificateArn.split(':')[3];
  if (!region) throw new Error(`certificateArn "${certificateArn}" is not an ACM certificate ARN`);
  if (!Token.isUnresolved(stack.region)) {
    if (region !== stack.region)
      throw new Error(
        `certificateArn is in ${region} but the stack is deployed to ${stack.region}: an API Gateway regional ` +
          'domain needs a certificate of its own region (set region, or use a certificate of that region)',
      );
    return;
  }
  new CfnRule(stack, 'CertificateRegion', {
    assertions: [
      {
        assert: Fn.conditionEquals(Aws.REGION, region),
        assertDescription: `The API certificate is in ${region}: deploy the stack to ${region}`,
      },
    ],
  });
}

function mailEnvironment(props: PlatformStackProps): Record<string, string> {
  return {
    ...(props.mailSender ? { MAIL_SES_SENDER: props.mailSender } : {}),
    ...(props.invitationLinkBase ? { INVITATION_LINK_BASE: props.invitationLinkBase } : {}),
  };
}

/** The gateway route keys of the separately throttled paths, each with its limit. */
function routeLimits(): Record<string, Throttle> {
  return Object.fromEntries(
    Object.entries(routeThrottles).flatMap(([path, limit]) =>
      isolatedGatewayPaths(path).map((gatewayPath) => [`ANY ${gatewayPath}`, limit] as const),
    ),
  );
}

function pascal(name: string): string {
  return name.replace(/(^|[-_])([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
