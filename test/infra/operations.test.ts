import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { groups, routesOf } from '../../functions/groups';
import { accessLogFields } from '../../infra/api';
import { stackName, stackSettings } from '../../infra/settings';
import { PlatformStack, type PlatformStackProps } from '../../infra/stack';
import { defaultStageThrottle, routeThrottles } from '../../infra/throttling';

type Resource = { Properties: Record<string, any>; DeletionPolicy?: string };

function synth(props: PlatformStackProps = {}, id = 'Ops'): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new PlatformStack(app, id, props));
}

let template: Template;
beforeAll(() => {
  template = synth({ stage: 'prod', deletionProtection: true });
});

const functionsOf = (t: Template) => Object.values(t.findResources('AWS::Lambda::Function')) as Resource[];
const groupFunctions = (t: Template) =>
  functionsOf(t).filter((fn) =>
    Object.values(groups).some((g) => g.description === fn.Properties.Description),
  );
const groupCount = Object.values(groups).filter((group) => routesOf(group.name).length > 0).length;

describe('API access logs and throttling', () => {
  it('writes one JSON access-log line per request with request id, route, status, latency and integration error', () => {
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage')) as Resource[];
    const format = JSON.parse(stage?.Properties.AccessLogSettings.Format);
    expect(format).toEqual(accessLogFields);
    for (const field of ['requestId', 'routeKey', 'status', 'responseLatency', 'integrationError']) {
      expect(Object.keys(format)).toContain(field);
    }
    expect(stage?.Properties.StageName).toBe('$default');
    expect(stage?.Properties.AccessLogSettings.DestinationArn).toBeDefined();
  });

  it('throttles the stage, and sign-in and the public endpoints on their own lower limits', () => {
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage')) as Resource[];
    expect(stage?.Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: defaultStageThrottle.rate,
      ThrottlingBurstLimit: defaultStageThrottle.burst,
    });
    const settings = stage?.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number }>;
    expect(settings['ANY /api/auth/jwt/token']).toMatchObject({ ThrottlingRateLimit: 50 });
    expect(settings['ANY /api/auth/jwt/token/{proxy+}']).toMatchObject({ ThrottlingRateLimit: 50 });
    expect(settings['ANY /api/auth/session']).toMatchObject({ ThrottlingRateLimit: 50 });
    expect(Object.keys(settings)).toHaveLength(Object.keys(routeThrottles).length * 2);
    for (const limit of Object.values(settings)) {
      expect(limit.ThrottlingRateLimit).toBeLessThan(defaultStageThrottle.rate);
    }
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );
    for (const key of Object.keys(settings)) expect(routeKeys).toContain(key);
  });
});

describe('functions: logs, tracing, roles, concurrency', () => {
  it('logs JSON, traces with X-Ray and writes to its own retained log group', () => {
    const fns = groupFunctions(template);
    expect(fns).toHaveLength(groupCount);
    for (const fn of fns) {
      expect(fn.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO' });
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.LoggingConfig.LogGroup).toBeDefined();
    }
    const logGroups = Object.values(template.findResources('AWS::Logs::LogGroup')) as Resource[];
    expect(logGroups.length).toBeGreaterThanOrEqual(groupCount + 1);
    for (const group of logGroups) {
      expect(group.DeletionPolicy).toBe('Retain');
      expect(group.Properties.RetentionInDays).toBe(30);
    }
  });

  it('removes the logs with an unprotected stage, like its data', () => {
    const dev = synth({ stage: 'dev', deletionProtection: false }, 'Dev');
    for (const group of Object.values(dev.findResources('AWS::Logs::LogGroup')) as Resource[]) {
      expect(group.DeletionPolicy).toBe('Delete');
    }
  });

  it('uses no AWS managed policy on the function roles', () => {
    const roles = Object.entries(template.findResources('AWS::IAM::Role')) as [string, Resource][];
    // CDK's own deploy-time providers (log retention, the Trigger) keep their generated roles.
    const functionRoles = roles.filter(
      ([id, role]) =>
        !id.startsWith('LogRetention') &&
        !id.startsWith('AWSCDKTrigger') &&
        JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com'),
    );
    expect(functionRoles.length).toBeGreaterThanOrEqual(groupCount);
    for (const [, role] of functionRoles) expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);
  });

  it('reserves concurrency where the stage asks for it, and nowhere else', () => {
    const capped = synth({ reservedConcurrency: { auth: 20, data: 100 } }, 'Capped');
    const byDescription = (t: Template, description: string) =>
      functionsOf(t).find((fn) => fn.Properties.Description === description);
    expect(byDescription(capped, groups.auth.description)?.Properties.ReservedConcurrentExecutions).toBe(20);
    expect(byDescription(capped, groups.data.description)?.Properties.ReservedConcurrentExecutions).toBe(100);
    expect(
      byDescription(capped, groups.roles.description)?.Properties.ReservedConcurrentExecutions,
    ).toBeUndefined();
    expect(
      byDescription(template, groups.auth.description)?.Properties.ReservedConcurrentExecutions,
    ).toBeUndefined();
  });
});

describe('alarms and dashboard', () => {
  const alarmNames = () =>
    (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]).map(
      (alarm) => alarm.Properties.AlarmDescription as string,
    );

  it('alarms on API 5xx rate and p99 latency, function errors and throttles, Aurora and DynamoDB', () => {
    const names = alarmNames();
    for (const expected of [
      'API 5xx responses above 1% of requests for 15 minutes',
      'API p99 latency above 3 s for 15 minutes',
      'Aurora CPU above 80% for 15 minutes',
      'Aurora above 90% of its maximum ACU for 15 minutes',
      'Aurora connections above 400 for 15 minutes',
      'DynamoDB requests throttled in each of 15 minutes',
    ]) {
      expect(names).toContain(expected);
    }
    for (const group of Object.values(groups)) {
      if (routesOf(group.name).length === 0) continue;
      expect(names).toContain(`${group.name} function errors above 1% of invocations for 15 minutes`);
      expect(names).toContain(`${group.name} throttled above 1% of invocations for 15 minutes`);
    }
  });

  it('sends every alarm to an encrypted, TLS-only topic', () => {
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]) {
      expect(JSON.stringify(alarm.Properties.AlarmActions)).toContain('ObservabilityAlarms');
    }
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      }),
    });
  });

  it('subscribes the alarm e-mail when one is set', () => {
    synth({ alarmEmail: 'ops@example.com' }, 'Mail').hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('draws a dashboard named after the stack', () => {
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Ops-platform' });
  });
});

describe('stages, issuer and custom domain', () => {
  it('tags every resource with the stage', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Tags: Match.arrayWith([{ Key: 'Stage', Value: 'prod' }]),
    });
  });

  it('issues tokens as the execute-api URL only when neither a domain nor an issuer is set', () => {
    const issuers = (t: Template) =>
      groupFunctions(t).map((fn) => fn.Properties.Environment.Variables.JWT_ISSUER);
    for (const issuer of issuers(template)) expect(JSON.stringify(issuer)).toContain('ApiEndpoint');
    const fixed = synth({ issuer: 'https://auth.example.com' }, 'Fixed');
    for (const issuer of issuers(fixed)) expect(issuer).toBe('https://auth.example.com');
    const domain = {
      name: 'api.example.com',
      certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/x',
    };
    const withDomain = synth({ domain }, 'Domain');
    for (const issuer of issuers(withDomain)) expect(issuer).toBe('https://api.example.com');
    // Adding a domain later keeps a configured issuer.
    const both = synth({ domain, issuer: 'https://auth.example.com' }, 'Both');
    for (const issuer of issuers(both)) expect(issuer).toBe('https://auth.example.com');
  });

  it('maps the custom domain to the stage with its certificate', () => {
    const domain = {
      name: 'api.example.com',
      certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/x',
    };
    const t = synth({ domain }, 'Mapped');
    t.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'api.example.com',
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: domain.certificateArn })],
    });
    t.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    t.hasOutput('DomainTarget', Match.anyValue());
  });

  it('reads the stage block of the context, with command-line keys over it', () => {
    const context: Record<string, unknown> = {
      stage: 'staging',
      stages: {
        staging: {
          deletionProtection: 'true',
          reservedConcurrency: { auth: 50 },
          domainName: 'a.example.com',
        },
      },
      certificateArn: 'arn:aws:acm:eu-west-1:1:certificate/y',
      reservedConcurrency: 'auth=10,data=30',
    };
    const settings = stackSettings((key) => context[key]);
    expect(stackName(settings.stage)).toBe('Platform-staging');
    expect(settings.deletionProtection).toBe(true);
    expect(settings.reservedConcurrency).toEqual({ auth: 10, data: 30 });
    expect(settings.domain).toEqual({ name: 'a.example.com', certificateArn: context.certificateArn });
    expect(stackSettings(() => undefined)).toMatchObject({ stage: 'dev', deletionProtection: true });
  });

  it('refuses bad settings before anything is synthesised', () => {
    expect(() => stackSettings((key) => ({ stage: 'Prod!' })[key])).toThrow(/stage/);
    expect(() => stackSettings((key) => ({ domainName: 'a.example.com' })[key])).toThrow(/certificateArn/);
    expect(() => stackSettings((key) => ({ reservedConcurrency: 'nope=3' })[key])).toThrow(/no group/);
    expect(() => stackSettings((key) => ({ reservedConcurrency: 'auth=0' })[key])).toThrow(/positive/);
  });
});
