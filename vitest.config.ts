import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/file-isolation.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    pool: 'forks',
    maxWorkers: 2,
    // Each worker process runs its test files one after another with the modules it has loaded: a file no longer
    // pays for a new process, the project's and the SDK's modules, and a cold platform start (the JIT, PGlite's
    // WebAssembly), which cost about 40% of the suite's CPU (docs/local-runtime.md, "Tests"). A file still gets its
    // own DynamoDB table and its own database; test/support/file-isolation.ts puts back what a file changed in the
    // process (spies, stubbed environment, fake timers).
    isolate: false,
    // Limits for a hung test, far above any test's quiet duration (the slowest start real processes and take
    // 5–20 s on a quiet machine): no verdict may depend on the machine's speed, and a busy machine is 5x slower.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // The same for `expect.poll` (browser pages, waiting on the DOM): its default of 1 s is a verdict on speed.
    expect: { poll: { timeout: 30_000 } },
    reporters: ['default'],
  },
});
