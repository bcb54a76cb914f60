import { readOutbox } from '../../adapters/local/outbox';
import { errors, json } from '../../api/responses';
import type { RouteDef } from '../../api/route';
import { outboxDirectory } from '../../compose/mailer';
import type { GroupService, Operations } from '../../http/context';

/**
 * The local Mail view's route (docs/local-runtime.md, "Mail"): the newest messages of the local outbox, which carry
 * live tokens (invitations, reset links). It exists on the local runtime only: it is in no group's manifest, so
 * the route table the cloud deploys, the OpenAPI document and the typed client never have it
 * (test/unit/local-mail-route.test.ts). Superusers only, decided by the policy as any route's permission
 * (shared/policy/permissions.ts): 401 unsigned, 403 for anyone else. The answers are never cached.
 */
const outboxMessage = {
  type: 'object',
  required: ['id', 'from', 'to', 'subject', 'date', 'text', 'truncated'],
  properties: {
    id: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    subject: { type: 'string' },
    date: { type: 'string' },
    text: { type: 'string' },
    truncated: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

export const localMailRoutes: readonly RouteDef[] = [
  {
    // Served by the accounts group's pipeline (its envelope, authentication and policy), on the local host only.
    group: 'accounts',
    scope: 'platform',
    operationId: 'listLocalMail',
    permission: 'superuser',
    method: 'GET',
    path: '/api/local/mail/',
    summary: 'The newest messages of the local outbox, newest first (local runtime only)',
    responses: {
      200: json('The newest messages and how many the outbox holds', {
        type: 'object',
        required: ['count', 'results'],
        properties: { count: { type: 'integer' }, results: { type: 'array', items: outboxMessage } },
      }),
      ...errors(401, 403),
    },
  },
];

const operations: Operations = {
  async listLocalMail(ctx) {
    const outbox = await readOutbox(outboxDirectory(ctx.deps.config));
    return { status: 200, body: outbox, headers: { 'cache-control': 'no-store' } };
  },
};

/** The local host's own routes, with their operations, in the accounts group's envelope. */
export function localMailService(accounts: GroupService): GroupService {
  return { manifest: accounts.manifest, operations };
}
