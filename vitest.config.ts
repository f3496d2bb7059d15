import { defineConfig } from 'vitest/config';

/**
 * The control-plane suites whose subject is the API server (what it serves, how the doctor reads and
 * judges it, the chart on it), run a second time against the oldest Kubernetes minor the chart's
 * kubeVersion admits (docs/distribution.md#kubernetes-versions). Left out: the suites whose subject is
 * a server of ours or a misbehaving one (faults, server probes and TLS, the reference server), the
 * real node's, and the monitor's leak run, none of which depends on the API server's version.
 */
const OLDEST_SUITES = [
  'bundle',
  'chart',
  'controlplane',
  'doctor',
  'dump',
  'executable',
  'fixtures',
  'gates',
  'install-pod-checks',
  'kubeconfig-oracle',
  'protobuf-lists',
  'quantities',
  'scale',
].map((name) => `test/integration/${name}.test.ts`);

/**
 * Three projects: `unit` (pure code, loopback servers, the built bundle as a process), `integration`
 * (the real control plane, started once by the global setup), and `integration-oldest` (the suites
 * above on the oldest minor, on a control plane of its own). `integration-oldest` is a group of its own
 * (`sequence.groupOrder`), so its files never run beside the integration project's, whose deadlines
 * two suites at once on two cores would stretch. All build the bundle first when it is stale.
 * `npm test` runs all three.
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
      {
        extends: true,
        test: {
          name: 'integration-oldest',
          include: OLDEST_SUITES,
          globalSetup: ['test/support/bundle-setup.ts', 'test/support/controlplane-oldest-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
