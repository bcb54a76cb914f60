import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { groups, routes } from '../../functions/groups';
import { type GatewayRoute, gatewayRoutes, greedy, matchGatewayRoute } from '../../infra/api-routes';
import { PlatformStack } from '../../infra/stack';
import { routeThrottles } from '../../infra/throttling';

type Resource = { Properties: Record<string, any> };

let deployed: GatewayRoute[];

/** The gateway routes of the synthesised template, each with the group whose function its integration invokes. */
function deployedRoutes(template: Template): GatewayRoute[] {
  const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
  const functions = template.findResources('AWS::Lambda::Function') as Record<string, Resource>;
  const groupOfFunction = (id: string) =>
    Object.values(groups).find((group) => group.description === functions[id]?.Properties.Description)?.name;
  return Object.values(template.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>).map(
    (route) => {
      const [method, path] = (route.Properties.RouteKey as string).split(' ') as [string, string];
      expect(method).toBe('ANY');
      const integrationId = (route.Properties.Target['Fn::Join'][1] as { Ref: string }[])[1]?.Ref as string;
      const uri = integrations[integrationId]?.Properties.IntegrationUri as {
        'Fn::GetAtt': [string, string];
      };
      const group = groupOfFunction(uri['Fn::GetAtt'][0]);
      if (!group) throw new Error(`route ${path} invokes no group function`);
      return { path, group };
    },
  );
}

/** A request path for a route-table path: each path variable filled with a sample value. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'sample-1');

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  deployed = deployedRoutes(Template.fromStack(new PlatformStack(app, 'Routing')));
});

describe('HTTP API routing', () => {
  it('creates ANY routes on the planned prefixes only, none ending in a slash', () => {
    expect(deployed.map((route) => route.path).sort()).toEqual(
      gatewayRoutes(routes, Object.keys(routeThrottles))
        .map((route) => route.path)
        .sort(),
    );
    for (const { path } of deployed) expect(path === '/' || !path.endsWith('/')).toBe(true);
  });

  it('sends every route-table path, with and without its trailing slash, to its own group function', () => {
    for (const route of routes) {
      const bare = concrete(route.path).replace(/\/$/, '');
      for (const path of [bare, `${bare}/`]) {
        expect(matchGatewayRoute(deployed, path)?.group, `${route.method} ${path}`).toBe(route.group);
      }
    }
  });

  it('puts the greedy variable last and names path variables alike at the same position', () => {
    const names = new Map<string, string>();
    for (const { path } of deployed) {
      const parts = path.split('/').slice(1);
      parts.forEach((part, i) => {
        if (part === greedy) expect(i).toBe(parts.length - 1);
        else if (part.startsWith('{')) {
          const position = `${parts.slice(0, i).join('/')}#${i}`;
          expect(names.get(position) ?? part, path).toBe(part);
          names.set(position, part);
        }
      });
    }
  });
});

describe('the documented matching rules, as modelled', () => {
  const table: GatewayRoute[] = [
    { path: '/pets/dog/{id}', group: 'roles' },
    { path: '/pets/{proxy+}', group: 'data' },
    { path: '/{proxy+}', group: 'meta' },
  ];

  it('prefers a full match, then the longest greedy prefix', () => {
    expect(matchGatewayRoute(table, '/pets/dog/1')?.path).toBe('/pets/dog/{id}');
    expect(matchGatewayRoute(table, '/pets/cat/1')?.path).toBe('/pets/{proxy+}');
    expect(matchGatewayRoute(table, '/toys/1')?.path).toBe('/{proxy+}');
  });

  it('never lets a route without a greedy variable take a trailing slash', () => {
    expect(matchGatewayRoute([{ path: '/pets/dog/{id}', group: 'roles' }], '/pets/dog/1/')).toBeUndefined();
    expect(matchGatewayRoute(table, '/pets/dog/1/')?.path).toBe('/pets/{proxy+}');
  });

  it('lets a greedy variable take an empty tail, as the reported /metrics/{proxy+} fix relies on', () => {
    expect(matchGatewayRoute([{ path: '/metrics/{proxy+}', group: 'meta' }], '/metrics/')?.path).toBe(
      '/metrics/{proxy+}',
    );
    expect(matchGatewayRoute([{ path: '/metrics/{proxy+}', group: 'meta' }], '/metrics')).toBeUndefined();
  });

  it('refuses a plan in which two groups claim the same gateway route', () => {
    expect(() =>
      gatewayRoutes([
        { ...routes[0], path: '/x/', group: 'auth' },
        { ...routes[0], path: '/x/', group: 'meta' },
      ] as typeof routes),
    ).toThrow(/claimed by groups/);
  });
});
