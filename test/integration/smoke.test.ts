import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmoke } from '../../bin/smoke';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The deployment smoke test (`npm run smoke -- <base-url>`, bin/smoke.ts) against the local HTTP server on
 * 127.0.0.1 with an ephemeral port: every check it makes of a deployed stack passes here, so it stays working.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.stop();
});

describe('npm run smoke', () => {
  it('passes every check against the local server, and fails on a wrong password', async () => {
    expect(new URL(platform.baseUrl).hostname).toBe('127.0.0.1');
    const lines: string[] = [];
    const checks = await runSmoke({
      baseUrl: platform.baseUrl,
      username: 'admin',
      password: adminPassword,
      report: (line) => lines.push(line),
    });
    expect(checks.filter((check) => !check.ok)).toEqual([]);
    expect(checks.map((check) => check.name)).toEqual(
      expect.arrayContaining([
        'GET /health answers 200 with status ok',
        'data: table, record, list, delete',
        'secrets: type, secret, read, delete',
        'GET /no/such/path answers 404',
      ]),
    );
    expect(checks.filter((check) => check.name.includes(' and ')).length).toBeGreaterThanOrEqual(8);
    expect(lines.at(-1)).toBe(`${checks.length} of ${checks.length} checks passed`);

    const refused = await runSmoke({
      baseUrl: platform.baseUrl,
      username: 'admin',
      password: 'not-the-password',
      report: () => {},
    });
    expect(refused.find((check) => check.name.startsWith('sign-in'))?.ok).toBe(false);
  });
});
