import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsManifest } from '../../functions/accounts/manifest';
import { accountOperations } from '../../functions/accounts/operations';
import { groups, routes } from '../../functions/groups';
import { gatewayRoutes, matchGatewayRoute } from '../../infra/api-routes';
import { routeThrottles } from '../../infra/throttling';
import { outboxBounds } from '../../shared/adapters/local/outbox';
import { localMailRoutes } from '../../shared/host/local/mail';
import { createGroupHandler, type HttpEvent } from '../../shared/http/handler';
import { openApiDocument } from '../../shared/http/openapi';
import { latestToken } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, unique } from '../support/tenant';

/**
 * The local Mail view's route (shared/host/local/mail.ts): the outbox's messages carry live tokens, so it answers
 * superusers only, and exists on the local runtime only.
 */
let platform: TestPlatform;
const mail = '/api/local/mail/';

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform?.stop();
});

describe('the local Mail route', () => {
  it('answers 401 unsigned and 403 to a signed-in user who is not a superuser, in the detail envelope', async () => {
    const anonymous = await platform.api.get(mail);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ detail: expect.any(String) });
    const { api } = await createUser(platform);
    const refused = await api.get(mail);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ detail: expect.any(String) });
    expect(JSON.stringify(refused.body)).not.toContain('outbox');
  });

  it('refuses an organization owner too, whose own invitation is in the outbox', async () => {
    const tenant = await createTenant(platform);
    const email = `${unique('owner-invitee')}@example.com`;
    const invited = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
      { invitee_identifier: email },
    );
    expect(invited.status).toBe(201);
    const refused = await tenant.owner.get(mail);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain(latestToken(platform, email));
  });

  it("gives a superuser the outbox's messages newest first, each with its text and live link, never cached", async () => {
    const tenant = await createTenant(platform);
    const first = `${unique('first')}@example.com`;
    const second = `${unique('second')}@example.com`;
    for (const email of [first, second]) {
      const invited = await tenant.owner.post(
        `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
        { invitee_identifier: email },
      );
      expect(invited.status).toBe(201);
    }
    const answer = await platform.adminApi.get(mail);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const sent = answer.body.results.filter((message: { to: string }) =>
      [first, second].includes(message.to),
    );
    expect(sent.map((message: { to: string }) => message.to)).toEqual([second, first]);
    const [newest] = sent;
    expect(newest).toMatchObject({
      from: expect.any(String),
      subject: expect.stringContaining('join the organization'),
      truncated: false,
    });
    expect(new Date(newest.date).toISOString()).toBe(newest.date);
    expect(newest.text).toContain(latestToken(platform, second));
    expect(newest.text).not.toContain('\r');
    expect(answer.body.count).toBeGreaterThanOrEqual(2);
  });

  it(`keeps to the newest ${outboxBounds.messages} messages, each cut at ${outboxBounds.fileBytes} bytes`, async () => {
    const dir = join(platform.deps.config.dataDir, 'outbox');
    const big = `From: a@example.com\r\nTo: big@example.com\r\nSubject: Big\r\nDate: ${new Date().toUTCString()}\r\n\r\n${'x'.repeat(outboxBounds.fileBytes * 2)}\r\n`;
    // Named to sort after every message the platform wrote (the names start with the time written).
    writeFileSync(join(dir, '9999-12-31T00-00-00-000Z-big.eml'), big);
    for (let i = 0; i < outboxBounds.messages; i++)
      writeFileSync(join(dir, `0000-01-01T00-00-00-${String(i).padStart(3, '0')}Z-old.eml`), big);
    writeFileSync(join(dir, 'not-a-message.txt'), 'ignored');
    const answer = await platform.adminApi.get(mail);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(outboxBounds.messages);
    expect(answer.body.count).toBeGreaterThan(outboxBounds.messages);
    const [newest] = answer.body.results;
    expect(newest).toMatchObject({ to: 'big@example.com', truncated: true });
    expect(newest.text.length).toBeLessThanOrEqual(outboxBounds.fileBytes);
  });
});

describe('the Mail route on the cloud', () => {
  it('is in no group manifest, so neither in the route table, the OpenAPI document nor the gateway', () => {
    const local = localMailRoutes.map((route) => route.path);
    expect(local).toEqual([mail]);
    expect(routes.filter((route) => route.path.startsWith('/api/local/'))).toEqual([]);
    for (const group of Object.values(groups)) expect(group.routes).not.toContain(localMailRoutes[0]);
    const document = openApiDocument(Object.values(groups)) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/api/local'))).toEqual([]);
    // API Gateway has no route for it: the request reaches no function (its own 404).
    const gateway = gatewayRoutes(routes, Object.keys(routeThrottles));
    expect(matchGatewayRoute(gateway, '/api/local/mail/')).toBeUndefined();
    expect(matchGatewayRoute(gateway, '/api/local/mail')).toBeUndefined();
  });

  it("is not found by the accounts group's Lambda handler, even for a superuser", async () => {
    const handler = createGroupHandler(accountsManifest, accountOperations, () => platform.deps);
    const token = platform.adminApi.token as string;
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath: mail,
      rawQueryString: '',
      headers: { authorization: `Bearer ${token}` },
      requestContext: { requestId: 'mail-cloud', http: { method: 'GET', path: mail, sourceIp: '127.0.0.1' } },
      isBase64Encoded: false,
    } as unknown as HttpEvent;
    const response = await handler(event, {} as Context);
    expect(response.statusCode).toBe(404);
  });
});
