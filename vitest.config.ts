import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure code, loopback servers, the built bundle as a process) and `integration`
 * (the real control plane started once by the global setup). Both build the bundle first when it is
 * stale. `npm test` runs both.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/process/**/*.test.ts'],
          globalSetup: ['test/support/bundle-setup.ts'],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/bundle-setup.ts', 'test/support/controlplane-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
