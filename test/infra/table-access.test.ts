import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/groups';
import { keyUseAccess, tableAccess } from '../../infra/table-access';
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

/** An UpdateItem of an API key's last-use item: what the conditional last-use grant allows. */
const keyUse = 'dynamodb:UpdateItem(APIKEYUSE#*)';

/** Whether a group's grants allow an action (the last-use write: by UpdateItem, or by the last-use grant). */
const allowed = (group: GroupName, action: string) =>
  tableAccess[group].includes(action) ||
  (action === keyUse && (tableAccess[group].includes('dynamodb:UpdateItem') || keyUseAccess[group]));

/** The IAM actions of one document-client call (a transaction is checked as its parts). */
function iamActions(commandName: string, input: Record<string, any>): string[] {
  const name = commandName.replace(/Command$/, '');
  // The document client's key, or the marshalled one ({S: …}).
  const partition = input.Key?.PK?.S ?? input.Key?.PK;
  if (/^Update(Item)?$/.test(name) && String(partition).startsWith('APIKEYUSE#')) return [keyUse];
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
        const extra = actions.filter((action) => !allowed(route.group as GroupName, action));
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

  // It was outside: a key's first request of the minute writes its last use (UpdateItem), which the data function
  // (reads only) was not granted, so in the cloud a key's last use on the data routes was never recorded. Now the
  // last use is an item of its own, and readers are granted UpdateItem on those items alone.
  it("keeps an API key's requests, and the write of its last use, within each group's grant", async () => {
    const { tenant } = fixture.a;
    const made = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/api-keys/`,
      { name: 'Grant probe', permissions: ['view_site'] },
    );
    expect(made.status).toBe(201);
    const api = platform.api.withToken(made.body.key).forSite(tenant.site.slug);
    const data = await actionsOf(() => api.get(`/api/apps/${tenant.app.slug}/datatables/`));
    expect(data, JSON.stringify(data)).toEqual(expect.arrayContaining(['dynamodb:GetItem', keyUse]));
    for (const action of data) expect(allowed('data', action)).toBe(true);
    // The data function itself may update nothing else.
    expect(tableAccess.data).not.toContain('dynamodb:UpdateItem');
  });
});
