import { afterAll, vi } from 'vitest';

/**
 * Test files share their worker's process and modules (`isolate: false` in vitest.config.ts): what one file changes
 * in the process is put back when it is done, whatever it forgot or however it failed. This hook is registered
 * before the file's own, so it runs after them (its platform is stopped first).
 *
 * Not covered here: a class-wide `mockClient(...)` of aws-sdk-client-mock, which each file restores itself.
 */
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  vi.resetConfig();
});
