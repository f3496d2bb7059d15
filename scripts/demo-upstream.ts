// `npm run demo -- --upstream`: the doctor against the real inference-cache, built from its source tree
// (../shared/upstream) and installed on a real node the way its README installs it (root, Linux).
//
// Brings the node up, installs cert-manager and the product (dev/cluster/upstream/), adds a healthy
// EventsOnly backend fed by upstream's fake engine and two broken ones (a PodLocal backend whose LMCache
// image is not in the registry, a managed Redis that cannot be pulled), runs the doctor's Helm test
// (the in-cluster path, as the controller) and then the doctor from here with human output, tears
// everything down and exits with the Helm test's doctor exit code. Where the machine cannot run it, it
// says what is missing and exits 1.
import { spawnSync } from 'node:child_process';
import { BUNDLE, bundleIsStale, ensureBundle } from '../dev/bundle.ts';
import { resolveBinaries } from '../dev/cluster/controlplane.ts';
import { INSTALL_NAMESPACE, applyObjects } from '../dev/cluster/manifests.ts';
import { missingForNode, startNodeCluster } from '../dev/cluster/node/node.ts';
import { nodeHelm } from '../dev/cluster/node/registry.ts';
import { UPSTREAM_DOCTOR_RELEASE, installDoctorChart } from '../dev/cluster/upstream/doctor-chart.ts';
import { installUpstream } from '../dev/cluster/upstream/install.ts';
import { missingForUpstream } from '../dev/cluster/upstream/programs.ts';
import {
  backendConditionReached,
  eventsOnlyBackend,
  fakeEnginePod,
  managedRedisBackend,
  podLocalBackend,
  workloadNamespace,
} from '../dev/cluster/upstream/workloads.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';
import { describeError } from '../src/text/errors.ts';

const started = Date.now();
function step(text: string): void {
  process.stderr.write(`[demo ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}\n`);
}

/** What this machine lacks for the real product, in words an operator can act on; empty when it can run. */
function missingHere(): string[] {
  if (process.platform !== 'linux') return ['Linux: the real node runs containerd, runc and a kubelet on this machine'];
  const missing = [...missingForNode(), ...missingForUpstream()];
  return missing.length === 0
    ? []
    : [
        ...missing,
        'build the programs with `npm run tools:build` (or `bash hack/build-tools.sh node registry upstream cert-manager helm4`),',
        'the doctor image with `IMAGE_BASES=local npm run image`, and run as root',
      ];
}

async function main(): Promise<number> {
  const missing = missingHere();
  if (missing.length > 0) {
    process.stderr.write(`demo --upstream: this machine cannot run the real product yet:\n${missing.map((m) => `  - ${m}`).join('\n')}\n`);
    process.stderr.write('`npm run demo` (without --upstream) runs the doctor against the built-in sample install instead.\n');
    return 1;
  }
  if (bundleIsStale()) {
    step('building the bundle');
    ensureBundle();
  }
  step('starting the control plane, the node and its registry');
  const cluster = await startNodeCluster({ log: (l) => step(l) });
  try {
    const product = await installUpstream(cluster, { log: (l) => step(l) });
    step('a healthy EventsOnly backend with a fake-engine pod (namespace demo-events), and two broken ones (demo-broken)');
    await workloadNamespace(cluster.kc, 'demo-events', cluster.registry);
    await applyObjects(cluster.kc, [eventsOnlyBackend('demo-events', 'events', 'vllm-events-only')]);
    await applyObjects(cluster.kc, [fakeEnginePod('demo-events', 'engine-0', 'vllm-events-only', product.images)]);
    await workloadNamespace(cluster.kc, 'demo-broken', cluster.registry);
    await applyObjects(cluster.kc, [
      podLocalBackend('demo-broken', 'lmcache', 'vllm-mp', cluster.registry),
      managedRedisBackend('demo-broken', 'managed-redis', 'vllm-redis', cluster.registry),
    ]);
    await applyObjects(cluster.kc, [fakeEnginePod('demo-broken', 'engine-0', 'vllm-mp', product.images)]);
    await backendConditionReached(cluster.kc, 'demo-events', 'events', 'Ready', 'True', (c) => c.status === 'True');
    step(`installing the doctor's chart from the registry and running: helm test ${UPSTREAM_DOCTOR_RELEASE} --logs`);
    installDoctorChart(cluster, UPSTREAM_DOCTOR_RELEASE);
    const helm = resolveBinaries().helm4;
    const kubeconfig = cluster.state.controlPlane.kubeconfigPath;
    let logs = '';
    try {
      logs = nodeHelm(helm, cluster.state.dir, ['test', UPSTREAM_DOCTOR_RELEASE, '-n', INSTALL_NAMESPACE, '--logs'], { kubeconfig });
    } catch (err) {
      logs = describeError(err);
    }
    const report = /\{[\s\S]*\}\s*$/.exec(logs)?.[0];
    const summary = report === undefined ? undefined : (JSON.parse(report) as { summary?: { exitCode?: number } }).summary;
    process.stdout.write(`${logs}\n`);
    step(`the in-cluster doctor exited with ${summary?.exitCode ?? 'no report'}; the same cluster seen from here (--config-only):`);
    process.stderr.write('\n');
    spawnSync(process.execPath, [BUNDLE, 'doctor', '--config-only', '--kubeconfig', kubeconfig], { cwd: PROJECT_ROOT, stdio: 'inherit' });
    process.stderr.write('\n');
    step('tearing down');
    return summary?.exitCode ?? 3;
  } finally {
    await cluster.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`demo --upstream: ${describeError(err)}\n`);
    process.exit(1);
  },
);
