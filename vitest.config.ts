import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    pool: 'forks',
    maxWorkers: 2,
    // Limits for a hung test, far above any test's quiet duration (the slowest start real processes and take
    // 5–20 s on a quiet machine): no verdict may depend on the machine's speed, and a busy machine is 5x slower.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    reporters: ['default'],
  },
});
