import { pathParamSchema } from '../api/path-params';
import { envelopeSchemas, isErrorStatus } from '../api/responses';
import type { GroupDef, JsonSchema, ResponseDef, RouteDef } from '../api/route';
import { platformVersion } from '../meta/version';
import { describePermission } from '../policy/permissions';
import { recordEventPayload, recordEvents } from '../webhooks/schemas';

/** The record events an app's webhook endpoints receive (docs/events.md, "The event catalogue"). */
function webhooks(): Record<string, unknown> {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  return Object.fromEntries(
    recordEvents.map((event) => [
      event,
      {
        post: {
          summary: `${event}: a record event, signed by the Standard Webhooks scheme`,
          parameters: [
            header('webhook-id', 'The event id: deduplicate by it'),
            header('webhook-timestamp', 'Seconds since the epoch when the delivery was signed'),
            header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">'),
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  ...recordEventPayload,
                  properties: { ...recordEventPayload.properties, event: { const: event } },
                },
              },
            },
          },
          responses: { '200': { description: 'Any 2xx status: delivered; anything else is retried' } },
        },
      },
    ]),
  );
}

function parameters(route: RouteDef) {
  const path = [...route.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => {
    const name = match[1] as string;
    const declared = (route.params?.properties as Record<string, JsonSchema> | undefined)?.[name] ?? {
      type: 'string',
    };
    // A text parameter shows the pipeline's bound (shared/api/path-params.ts) where its schema declares no length.
    const bound = declared.type === 'string' ? pathParamSchema(name) : undefined;
    const schema = bound && declared.maxLength === undefined ? { ...declared, ...bound } : declared;
    return { name, in: 'path', required: true, schema };
  });
  const query = Object.entries((route.query?.properties as Record<string, JsonSchema> | undefined) ?? {}).map(
    ([name, schema]) => ({ name, in: 'query', required: false, schema }),
  );
  return [...path, ...query];
}

const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};

/** One response object: the declared body, or for an error status a reference to the group's envelope. */
function responseObject(group: GroupDef, status: number, response: ResponseDef): Record<string, unknown> {
  const schema =
    response.schema ??
    (isErrorStatus(status)
      ? { $ref: `#/components/schemas/${envelopeSchemas[group.envelope].name}` }
      : undefined);
  return {
    description: response.description,
    ...(status === 429 ? { headers: retryAfter } : {}),
    ...(schema ? { content: { [response.contentType ?? 'application/json']: { schema } } } : {}),
  };
}

function responses(group: GroupDef, route: RouteDef): Record<string, unknown> {
  const declared = Object.entries(route.responses ?? {});
  if (declared.length === 0)
    return { default: { description: 'See the specification of the endpoint group' } };
  return Object.fromEntries(
    declared.map(([status, response]) => [status, responseObject(group, Number(status), response)]),
  );
}

/** The error envelopes of the groups, one schema component per style. */
function envelopeComponents(groups: readonly GroupDef[]): Record<string, JsonSchema> {
  const styles = new Set(groups.map((group) => group.envelope));
  return Object.fromEntries(
    [...styles].map((style) => [envelopeSchemas[style].name, envelopeSchemas[style].schema]),
  );
}

/**
 * The OpenAPI 3.1 document of the API, generated from the groups' manifests (functions/groups.ts): every route of
 * the route table, each group a tag, its error statuses in its envelope.
 */
export function openApiDocument(groups: readonly GroupDef[], serverUrl = '/'): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of groups) {
    for (const route of group.routes) {
      const operations = paths[route.path] ?? {};
      operations[route.method.toLowerCase()] = {
        operationId: route.operationId,
        summary: route.summary,
        description: `Who may call it: ${describePermission(route.permission)}.`,
        'x-permission': route.permission,
        tags: [route.group],
        ...(route.permission === 'public' ? { security: [] } : {}),
        parameters: [
          ...parameters(route),
          ...(route.scope === 'site'
            ? [
                {
                  name: 'X-Site',
                  in: 'header',
                  required: false,
                  schema: { type: 'string' },
                  description: 'Site slug',
                },
              ]
            : []),
        ],
        ...(route.body
          ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }
          : {}),
        responses: responses(group, route),
      };
      paths[route.path] = operations;
    }
  }
  return {
    openapi: '3.1.0',
    // One version wherever it shows: package.json's, which /health answers too (shared/meta/version.ts).
    info: { title: 'Tenantbase API', version: platformVersion },
    servers: [{ url: serverUrl }],
    tags: groups.map((group) => ({ name: group.name, description: group.description })),
    components: {
      schemas: envelopeComponents(groups),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
    security: [{ bearer: [] }],
    paths,
    webhooks: webhooks(),
  };
}
