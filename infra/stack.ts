import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import {
  CorsHttpMethod,
  HttpApi,
  type HttpMethod,
  HttpRoute,
  HttpRouteKey,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
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
import { groups, routesOf } from '../shared/http/routes';
import { indexes, tableKeys, ttlAttribute } from '../shared/store/table';
import { gatewayPath } from './api-routes';
import { groupCode } from './bundling';
import { DataPlane } from './data-plane';
import { createSecretsKey, grantSecretsKey } from './secrets-key';

export interface PlatformStackProps extends StackProps {
  /** Refuse to delete the control-plane table (default true). */
  readonly deletionProtection?: boolean;
  /** Default site for single-tenant installs. */
  readonly defaultSite?: string;
  /** Sites are resolved from `{site}.{baseDomain}` host names. */
  readonly baseDomain?: string;
  /** Origins whose browser apps may call the API; the same setting and default as the local CORS_ORIGINS. */
  readonly corsOrigins?: readonly string[];
  /**
   * Verified SES identity (an e-mail address) that sends invitation e-mail; without it the invitations function
   * has no mail permission and writes nothing (the local outbox is for development).
   */
  readonly mailSender?: string;
  /** Base URL of the invitation acceptance page (INVITATION_LINK_BASE). */
  readonly invitationLinkBase?: string;
}

/**
 * The platform in the cloud: an HTTP API whose routes come from the route table, one Lambda per endpoint group,
 * the control-plane DynamoDB table and the JWT signing key.
 */
export class PlatformStack extends Stack {
  readonly api: HttpApi;
  readonly table: TableV2;
  readonly signingKey: Key;
  /** Wraps the secret store's data keys; only the secrets function may use it. */
  readonly secretsKey: Key;
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

    this.secretsKey = createSecretsKey(this, protect);

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

    const functions = new Map<GroupName, NodejsFunction>();
    for (const group of Object.values(groups)) {
      const routes = routesOf(group.name);
      if (routes.length === 0) continue;
      const fn = new NodejsFunction(this, `${pascal(group.name)}Function`, {
        // Bundled by infra/bundling.ts (code split, the same bundle as `npm run build`), not by the construct.
        code: groupCode(group.name),
        handler: 'index.handler',
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
          ...(group.name === 'secrets' ? { SECRETS_KEY_ID: this.secretsKey.keyArn } : {}),
          ...(group.name === 'invitations' ? mailEnvironment(props) : {}),
        },
        ...sqlAccess(group)?.functionPlacement(),
      });
      this.table.grantReadWriteData(fn);
      // Every group verifies tokens (public key); only the auth group signs them.
      this.signingKey.grant(fn, 'kms:GetPublicKey');
      if (group.name === 'auth') this.signingKey.grant(fn, 'kms:Sign');
      if (group.name === 'secrets') grantSecretsKey(this.secretsKey, fn);
      sqlAccess(group)?.grantConnect(fn);
      if (group.name === 'invitations' && props.mailSender)
        fn.addToRolePolicy(this.sendMailAs(props.mailSender));

      const integration = new HttpLambdaIntegration(`${pascal(group.name)}Integration`, fn);
      for (const route of routes) {
        const path = gatewayPath(route);
        new HttpRoute(this, `Route ${route.method} ${path}`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(path, route.method as HttpMethod),
          integration,
        });
      }
      functions.set(group.name, fn);
    }
    this.functions = functions;

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
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

function mailEnvironment(props: PlatformStackProps): Record<string, string> {
  return {
    ...(props.mailSender ? { MAIL_SES_SENDER: props.mailSender } : {}),
    ...(props.invitationLinkBase ? { INVITATION_LINK_BASE: props.invitationLinkBase } : {}),
  };
}

function pascal(name: string): string {
  return name.replace(/(^|[-_])([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
