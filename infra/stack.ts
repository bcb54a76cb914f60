import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { CorsHttpMethod, HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  corsAllowHeaders,
  corsAllowMethods,
  corsExposeHeaders,
  corsMaxAgeSeconds,
  defaultCorsOrigins,
} from '../shared/http/cors';
import type { GroupDef, GroupName } from '../shared/http/route';
import { groups, routesOf, routes as routeTable } from '../shared/http/routes';
import { indexes, tableKeys, ttlAttribute } from '../shared/store/table';
import { gatewayRoutes } from './api-routes';
import { copyGroupAssetsCommands, esmBanner, handlerEntry, localOnly, nodeTarget } from './bundling';
import { DataPlane } from './data-plane';
import { grantTableAccess } from './table-access';

export interface PlatformStackProps extends StackProps {
  /** Refuse to delete the control-plane table (default true). */
  readonly deletionProtection?: boolean;
  /** Default site for single-tenant installs. */
  readonly defaultSite?: string;
  /** Sites are resolved from `{site}.{baseDomain}` host names. */
  readonly baseDomain?: string;
  /** Origins whose browser apps may call the API; the same setting and default as the local CORS_ORIGINS. */
  readonly corsOrigins?: readonly string[];
}

/**
 * The platform in the cloud: an HTTP API whose routes come from the route table, one Lambda per endpoint group,
 * the control-plane DynamoDB table and the JWT signing key.
 */
export class PlatformStack extends Stack {
  readonly api: HttpApi;
  readonly table: TableV2;
  readonly signingKey: Key;
  readonly functions: ReadonlyMap<GroupName, NodejsFunction>;
  /** Aurora PostgreSQL behind RDS Proxy, when some group uses SQL. */
  readonly dataPlane: DataPlane | undefined;

  constructor(scope: Construct, id: string, props: PlatformStackProps = {}) {
    super(scope, id, props);
    const protect = props.deletionProtection ?? true;

    this.table = new TableV2(this, 'ControlPlane', {
      partitionKey: { name: tableKeys.partition, type: AttributeType.STRING },
      sortKey: { name: tableKeys.sort, type: AttributeType.STRING },
      globalSecondaryIndexes: indexes.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partition, type: AttributeType.STRING },
        sortKey: { name: index.sort, type: AttributeType.STRING },
      })),
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: ttlAttribute,
      deletionProtection: protect,
      removalPolicy: protect ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.signingKey = new Key(this, 'JwtSigningKey', {
      description: 'Signs the platform JWTs (ES256)',
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      removalPolicy: protect ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.api = new HttpApi(this, 'Api', {
      description: 'Multi-tenant backend platform',
      corsPreflight: {
        allowOrigins: [...(props.corsOrigins ?? defaultCorsOrigins)],
        allowHeaders: [...corsAllowHeaders],
        allowMethods: corsAllowMethods.map((method) => CorsHttpMethod[method]),
        exposeHeaders: [...corsExposeHeaders],
        maxAge: Duration.seconds(corsMaxAgeSeconds),
      },
    });

    const sqlGroups = Object.values(groups).filter(
      (group) => group.usesSql && routesOf(group.name).length > 0,
    );
    this.dataPlane =
      sqlGroups.length > 0 ? new DataPlane(this, 'DataPlane', { deletionProtection: protect }) : undefined;
    const sqlAccess = (group: GroupDef) => (group.usesSql ? this.dataPlane : undefined);

    const gateway = gatewayRoutes(routeTable);
    const functions = new Map<GroupName, NodejsFunction>();
    for (const group of Object.values(groups)) {
      const routes = routesOf(group.name);
      if (routes.length === 0) continue;
      const fn = new NodejsFunction(this, `${pascal(group.name)}Function`, {
        entry: handlerEntry(group.name),
        handler: 'handler',
        description: group.description,
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout: Duration.seconds(29),
        logGroup: new LogGroup(this, `${pascal(group.name)}Logs`, {
          retention: RetentionDays.ONE_MONTH,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
        environment: {
          TABLE_NAME: this.table.tableName,
          JWT_SIGNING_KEY_ID: this.signingKey.keyArn,
          JWT_ISSUER: this.api.apiEndpoint,
          NODE_OPTIONS: '--enable-source-maps',
          ...(props.defaultSite ? { DEFAULT_SITE: props.defaultSite } : {}),
          ...(props.baseDomain ? { BASE_DOMAIN: props.baseDomain } : {}),
          ...sqlAccess(group)?.environment(),
        },
        ...sqlAccess(group)?.functionPlacement(),
        bundling: {
          format: OutputFormat.ESM,
          target: nodeTarget,
          minify: true,
          sourceMap: true,
          mainFields: ['module', 'main'],
          banner: esmBanner,
          externalModules: localOnly,
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir, outputDir) => copyGroupAssetsCommands(group.name, inputDir, outputDir),
          },
        },
      });
      grantTableAccess(this.table, fn, group.name);
      // Every group verifies tokens (public key); only the auth group signs them.
      this.signingKey.grant(fn, 'kms:GetPublicKey');
      if (group.name === 'auth') this.signingKey.grant(fn, 'kms:Sign');
      sqlAccess(group)?.grantConnect(fn);

      const integration = new HttpLambdaIntegration(`${pascal(group.name)}Integration`, fn);
      // ANY on the group's prefixes: the Lambda's router matches the exact path and method (404/405 bodies).
      for (const { path } of gateway.filter((route) => route.group === group.name)) {
        new HttpRoute(this, `Route ANY ${path}`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(path, HttpMethod.ANY),
          integration,
        });
      }
      functions.set(group.name, fn);
    }
    this.functions = functions;

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }
}

function pascal(name: string): string {
  return name.replace(/(^|[-_])([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
