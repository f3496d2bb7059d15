import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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
 * The suites of the real node (project `node`): they share one node (fixed addresses and interface
 * names, so never two at once; test/support/shared-node.ts). `npm test` runs this project in a vitest
 * process of its own beside the others (scripts/test-lanes.ts): its suites spend most of their time
 * waiting for pods, which the other lane fills with work.
 */
export const NODE_SUITES = [
  'argocd',
  'cluster-up-node',
  'flux',
  'monitor-node',
  'node',
  'orphans',
  'registry-pulls',
  'shared-node',
  'upstream-product',
].map((name) => `test/integration/${name}.test.ts`);

/**
 * The suites whose subject is a node of their own (`npm run cluster:up -- --node`): they take the shared
 * node down first (test/support/shared-node.ts), so they run before the others, while no shared node
 * has started yet.
 */
const OWN_NODE_SUITES = ['test/integration/cluster-up-node.test.ts', 'test/integration/orphans.test.ts'];

/**
 * Vitest's order (the slowest files first, from its cache), with the suites of OWN_NODE_SUITES before
 * all, in that list's order (the last of them leaves the shared node started for the others).
 */
class OwnNodeFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => OWN_NODE_SUITES.findIndex((s) => f.moduleId.endsWith(s));
    const own = sorted.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...own, ...sorted.filter((f) => rank(f) < 0)];
  }
}

/**
 * Four projects: `unit` (pure code, loopback servers, the built bundle as a process), `integration`
 * (the real control plane, started once by the global setup), `integration-oldest` (the suites
 * above on the oldest minor, on a control plane of its own) and `node` (the suites above, which need
 * the machine's node and image store). Each project runs one file at a time, and `integration-oldest`
 * and `node` are groups of their own (`sequence.groupOrder`), so a plain `vitest run` never runs two
 * integration files at once on two cores. `npm test` runs `node` in a process of its own beside the
 * other three (scripts/test-lanes.ts). All build the bundle first when it is stale. The timing
 * reporter writes each file's time where TEST_TIMES_FILE names (the phase table of `.ci/run`).
 */
export default defineConfig({
  test: {
    pool: 'forks',
    reporters: ['default', './test/support/timing-reporter.ts'],
    sequence: { sequencer: OwnNodeFirst },
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
          exclude: NODE_SUITES,
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
      {
        extends: true,
        test: {
          name: 'node',
          include: NODE_SUITES,
          globalSetup: ['test/support/bundle-setup.ts', 'test/support/controlplane-setup.ts', 'test/support/node-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
