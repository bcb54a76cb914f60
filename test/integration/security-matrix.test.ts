import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../console/build';
import { routes } from '../../functions/groups';
import { serveConsoleFrom } from '../../functions/pages/console';
import type { ApiClient } from '../support/client';
import { expectedOutcome, matches } from '../support/expected-access';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { type Call, sampleCall, urlOf } from '../support/route-samples';
import { buildSecurityFixture, type Identity, type SecurityFixture } from '../support/security-fixture';

/**
 * The isolation and authorization matrix, generated from the route table (docs/security.md): every route is called
 * by every identity on site A, and by site B's owner from site B with site A's objects. The expected outcome comes
 * from the route's declared permission, so a new route is covered (or fails for want of a sample) by itself.
 */

let platform: TestPlatform;
let fixture: SecurityFixture;

// The console's routes answer what a built console answers: this file builds its own copy (console/build.ts).
const consoleDirectory = mkdtempSync(join(tmpdir(), 'console-matrix-'));

beforeAll(async () => {
  buildConsole(consoleDirectory);
  serveConsoleFrom(consoleDirectory);
  // Sign-up open, so that its route answers like every public route (it is closed by default: sign-up.test.ts).
  platform = await startTestPlatform({ SIGN_UP: 'open' });
  fixture = await buildSecurityFixture(platform);
}, 120_000);
afterAll(async () => {
  rmSync(consoleDirectory, { recursive: true, force: true });
  await platform?.stop();
});

async function send(api: ApiClient, method: string, route: (typeof routes)[number], call: Call) {
  const path = urlOf(route, call);
  return api.request(method, path, route.body ? (call.body ?? {}) : undefined);
}

/** The answer without the strings the request itself sent (bulk answers name the roles they could not find). */
function withoutEcho(text: string, body: unknown): string {
  const sent = JSON.stringify(body ?? null).match(/"(?:[^"\\]|\\.)*"/g) ?? [];
  return sent.reduce((rest, value) => rest.replaceAll(value, '""'), text);
}

/** Destructive operations are called last, so that nothing later depends on what they removed. */
const ordered = [...routes].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));

describe('authorization matrix', () => {
  it('covers every identity the matrix needs', () => {
    expect(fixture.identities.map((identity) => identity.name)).toHaveLength(14);
  });

  it.each(ordered.map((route) => [`${route.method} ${route.path} (${route.permission})`, route] as const))(
    '%s',
    async (_, route) => {
      const check = async (who: Identity) => {
        const call = await sampleCall(route, fixture, fixture.a);
        const expected = expectedOutcome(route.permission, who, call.params);
        const response = await send(who.api, route.method, route, call);
        if (matches(expected, route.method, response.status)) return null;
        return `${who.name}: expected ${expected}, got ${response.status} ${response.text.slice(0, 200)}`;
      };
      const results: (string | null)[] = [];
      // Sign-ins of one account are counted before the password is checked: in parallel they would be throttled.
      if (route.group === 'auth') for (const who of fixture.identities) results.push(await check(who));
      else results.push(...(await Promise.all(fixture.identities.map(check))));
      expect(results.filter((line) => line !== null)).toEqual([]);
    },
  );
});

describe('site isolation', () => {
  const siteRoutes = ordered.filter((route) => route.scope === 'site');

  it.each(siteRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s from site B with site A's objects never reaches them",
    async (_, route) => {
      const call = await sampleCall(route, fixture, fixture.a);
      const response = await send(fixture.b.tenant.owner, route.method, route, call);
      expect(response.status).toBeLessThan(500);
      expect(response.status).not.toBe(401);
      if (response.status < 300) {
        const shown = withoutEcho(response.text, call.body);
        const leaked = fixture.markersOfA.filter((marker) => shown.includes(marker));
        expect(leaked, `${response.status} ${response.text.slice(0, 300)}`).toEqual([]);
      }
    },
  );

  it("answers 403 to site B's owner naming site A", async () => {
    const response = await fixture.b.tenant.owner.forSite(fixture.a.tenant.site.slug).get('/api/apps/');
    expect(response.status).toBe(403);
  });
});
