import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/groups';
import { tableAccess } from '../../infra/table-access';
import type { GroupName } from '../../shared/api/route';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';
import { sampleCall, urlOf } from '../support/route-samples';
import { buildSecurityFixture, type SecurityFixture } from '../support/security-fixture';
import { createUser } from '../support/tenant';

/**
 * The IAM grants of infra/table-access.ts checked against what the functions really call: every route sample is
 * sent through the local platform, and the DynamoDB actions each request makes must be in its group's grant.
 */

let platform: TestPlatform;
let fixture: SecurityFixture;
const seen: string[] = [];

/** The IAM actions of one document-client call (a transaction is checked as its parts). */
function iamActions(commandName: string, input: Record<string, any>): string[] {
  const name = commandName.replace(/Command$/, '');
  if (name === 'TransactWrite' || name === 'TransactWriteItems') {
    return (input.TransactItems as Record<string, unknown>[]).flatMap((item) =>
      Object.keys(item).map(
        (part) => `dynamodb:${part === 'ConditionCheck' ? 'ConditionCheckItem' : `${part}Item`}`,
      ),
    );
  }
  const single: Record<string, string> = {
    Get: 'GetItem',
    Put: 'PutItem',
    Update: 'UpdateItem',
    Delete: 'DeleteItem',
  };
  const batch: Record<string, string> = { BatchGet: 'BatchGetItem', BatchWrite: 'BatchWriteItem' };
  return [`dynamodb:${single[name] ?? batch[name] ?? name}`];
}

beforeAll(async () => {
  platform = await startTestPlatform();
  fixture = await buildSecurityFixture(platform);
  platform.deps.store.doc.middlewareStack.add(
    (next, context) => async (args) => {
      seen.push(...iamActions(context.commandName ?? 'unknown', args.input as Record<string, any>));
      return next(args);
    },
    { step: 'initialize', name: 'recordTableActions' },
  );
}, 120_000);
afterAll(async () => {
  await platform?.stop();
});

/** The DynamoDB actions one request makes. */
async function actionsOf(send: () => Promise<unknown>): Promise<string[]> {
  seen.length = 0;
  await send();
  return [...new Set(seen)];
}

const ordered = [...routes].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));

describe('table grants against the calls the functions make', () => {
  it('records calls at all (the probe works)', async () => {
    const actions = await actionsOf(() => platform.adminApi.get('/api/cloud/users/me/'));
    expect(actions).toContain('dynamodb:BatchGetItem');
  });

  it('keeps every route sample, sent by the site owner and by a superuser, within its group grant', async () => {
    const outside: string[] = [];
    const callers = [fixture.a.tenant.owner, platform.adminApi.forSite(fixture.a.tenant.site.slug)];
    for (const route of ordered) {
      for (const caller of callers) {
        const call = await sampleCall(route, fixture, fixture.a);
        const body = route.body ? (call.body ?? {}) : undefined;
        const actions = await actionsOf(() => caller.request(route.method, urlOf(route, call), body));
        const extra = actions.filter((action) => !tableAccess[route.group as GroupName].includes(action));
        if (extra.length > 0) outside.push(`${route.method} ${route.path}: ${extra.join(', ')}`);
      }
    }
    expect(outside).toEqual([]);
  }, 120_000);

  it('keeps a failed and a successful sign-in within the auth grant', async () => {
    const actions = [
      ...(await actionsOf(() =>
        platform.api.post('/api/auth/jwt/token/', { username: 'admin', password: 'wrong' }),
      )),
      ...(await actionsOf(() =>
        platform.api.post('/api/auth/jwt/token/', { username: 'admin', password: adminPassword }),
      )),
    ];
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:PutItem']));
    for (const action of actions) expect(tableAccess.auth).toContain(action);
  });

  // It was outside: a confirmed current password clears the account's failure window (DeleteItem), which the
  // accounts function was not granted, so changing one's own password failed in the cloud.
  it('keeps an own password change (the current password confirmed) within the accounts grant', async () => {
    const { user, password, api } = await createUser(platform);
    const actions = await actionsOf(() =>
      api.patch(`/api/cloud/users/${user.id}/`, {
        current_password: password,
        password: 'Amber-Lantern-Fjord-83',
      }),
    );
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:DeleteItem']));
    for (const action of actions) expect(tableAccess.accounts).toContain(action);
  });

  it('keeps browser sessions within the grants: login and logout (auth), a cookie request and a password change (accounts)', async () => {
    const { user, password } = await createUser(platform);
    const origin = new URL(platform.baseUrl).origin;
    const login = await platform.api.post('/api/auth/session/', { username: user.username, password });
    const cookie = /^sessionid=[^;]*/.exec(login.headers.get('set-cookie') ?? '')?.[0] ?? '';
    const headers = { cookie, origin };
    const change = await actionsOf(() =>
      platform.api.patch(
        `/api/cloud/users/${user.id}/`,
        { current_password: password, password: 'Copper-Nebula-Thistle-5' },
        { headers },
      ),
    );
    expect(change).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem']));
    for (const action of change) expect(tableAccess.accounts).toContain(action);
    const logout = await actionsOf(() => platform.api.delete('/api/auth/session/', undefined, { headers }));
    expect(logout).toEqual(['dynamodb:DeleteItem']);
    for (const action of logout) expect(tableAccess.auth).toContain(action);
  });
});
