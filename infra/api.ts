import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  type CfnStage,
  CorsHttpMethod,
  DomainName,
  HttpApi,
  type HttpRoute,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  corsAllowHeaders,
  corsAllowMethods,
  corsAllowsCredentials,
  corsExposeHeaders,
  corsMaxAgeSeconds,
  defaultCorsOrigins,
} from '../shared/cors';

/** Requests per second (steady) and burst for the whole stage, and for the routes that need less. */
export interface Throttle {
  readonly rate: number;
  readonly burst: number;
}

/** A custom domain: the API answers on it, and it becomes the JWT issuer. */
export interface CustomDomain {
  readonly name: string;
  /** An ACM certificate in the stack's region covering `name`. */
  readonly certificateArn: string;
}

export interface PlatformApiProps {
  readonly corsOrigins?: readonly string[];
  /** The stage default, every route. */
  readonly throttle: Throttle;
  readonly domain?: CustomDomain;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * One access-log line per request, JSON: who called what, what the gateway answered, how long it and the
 * integration took, and the integration's error when it failed (request id to join with the function's logs).
 */
export const accessLogFields = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  errorMessage: '$context.error.message',
  userAgent: '$context.identity.userAgent',
} as const;

/**
 * The HTTP API: CORS as the local server answers it, one `$default` stage with JSON access logs and throttling,
 * and the custom domain mapped to it when one is configured.
 */
export class PlatformApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly domain: DomainName | undefined;
  /** The base URL: the custom domain's when there is one. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: PlatformApiProps) {
    super(scope, id);
    const origins = props.corsOrigins ?? defaultCorsOrigins;
    this.api = new HttpApi(this, 'Api', {
      description: 'Multi-tenant backend platform',
      createDefaultStage: false,
      // With a custom domain, the domain is the only way in: the execute-api URL would bypass whatever the domain
      // adds (a WAF'd CloudFront in front, the issuer's host) and answer tokens of the same issuer.
      disableExecuteApiEndpoint: props.domain !== undefined,
      corsPreflight: {
        allowOrigins: [...origins],
        // The listed origins' apps may send the browser session cookie; `*` never gets credentials.
        ...(corsAllowsCredentials(origins) ? { allowCredentials: true } : {}),
        allowHeaders: [...corsAllowHeaders],
        allowMethods: corsAllowMethods.map((method) => CorsHttpMethod[method]),
        exposeHeaders: [...corsExposeHeaders],
        maxAge: Duration.seconds(corsMaxAgeSeconds),
      },
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttle.rate, burstLimit: props.throttle.burst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    if (props.domain) {
      this.domain = new DomainName(this, 'Domain', {
        domainName: props.domain.name,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
      });
      new ApiMapping(this, 'Mapping', { api: this.api, domainName: this.domain, stage: this.stage });
    }
    this.url = props.domain ? `https://${props.domain.name}` : this.api.apiEndpoint;
  }

  /**
   * Route-level limits (HTTP API has no L2 for them: the stage's RouteSettings). The stage must be created after
   * the routes it names, or CloudFormation cannot find them.
   */
  limitRoutes(routes: ReadonlyMap<string, HttpRoute>, limits: Readonly<Record<string, Throttle>>): void {
    for (const key of Object.keys(limits)) {
      const route = routes.get(key);
      if (!route) throw new Error(`Throttled route ${key} is not a route of the API`);
      this.stage.node.addDependency(route);
    }
    const cfn = this.stage.node.defaultChild as CfnStage;
    cfn.routeSettings = Object.fromEntries(
      Object.entries(limits).map(([key, limit]) => [
        key,
        { ThrottlingRateLimit: limit.rate, ThrottlingBurstLimit: limit.burst },
      ]),
    );
  }
}
