// `npm run cluster:up` and `npm run cluster:down`: a development cluster that stays up between commands
// (runs under Node 24 type stripping; README.md in this folder says what runs and how the node comes up).
//   node dev/cluster/cli.ts up [--with-controller-manager]   control plane only; last line: export KUBECONFIG=...
//   node dev/cluster/cli.ts up --node                        control plane + a real node + the sample install
//                                                            as pods (root)
//   node dev/cluster/cli.ts up --node --argocd               … and Argo CD's repo-server and application-controller,
//                                                            Redis, and the chart as a Helm repository
//   node dev/cluster/cli.ts up --node --flux                 … and Flux's source-controller and helm-controller, with
//                                                            their CRDs (HelmReleases from the node's OCI registry)
//   node dev/cluster/cli.ts up --node --upstream             … with the real product instead of the sample install:
//                                                            cert-manager, upstream's config/default (built from
//                                                            ../shared/upstream) and the doctor's chart beside it
//   node dev/cluster/cli.ts down                             stops everything and names what was left behind
//   node dev/cluster/cli.ts down --orphans                   … and then what a killed run left without a state file,
//                                                            found by the project's folder and object names under
//                                                            os.tmpdir() (node/orphans.ts); exits 1 if any remains
//   node dev/cluster/cli.ts status
// State: ${XDG_RUNTIME_DIR:-os.tmpdir()}/inferencecache-doctor-cluster.json (override: CONTROLPLANE_STATE_FILE).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE_NAME, POD_CIDR, SERVICE_CIDR } from './node/addresses.ts';
import { nodeLeftovers, startNodeCluster, stopNodeCluster, type NodeClusterState } from './node/node.ts';
import { doctorChart, doctorChartArgs, doctorImageValues, pullSecret, registryLoginArgs } from './node/registry.ts';
import { FLUX_NAMESPACE } from './node/flux.ts';
import { WORKLOAD_NAMESPACE, deploySampleInstall } from './node/sample-install-pods.ts';
import { INSTALL_NAMESPACE, applyObjects } from './manifests.ts';
import { installUpstream } from './upstream/install.ts';
import { UPSTREAM_DOCTOR_RELEASE, installDoctorChart } from './upstream/doctor-chart.ts';
import { controlPlaneState, isAlive, startControlPlane, stopControlPlane, type ControlPlaneState } from './controlplane.ts';
import { removeOrphans } from './node/orphans.ts';
import { sharedNodeFile, sharedNodeRecorded, stopSharedNode } from './node/shared-node.ts';

/** The state file of `up --node` also has what taking the node down needs. */
type State = ControlPlaneState & { node?: NodeClusterState };

const stateFile =
  process.env['CONTROLPLANE_STATE_FILE'] || path.join(process.env['XDG_RUNTIME_DIR'] || os.tmpdir(), 'inferencecache-doctor-cluster.json');

function readState(): State | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile, 'utf8')) as State;
  } catch {
    return undefined;
  }
}

function running(state: State): boolean {
  return isAlive(state.pids.etcd) && isAlive(state.pids.apiserver);
}

async function up(args: string[]): Promise<void> {
  const existing = readState();
  if (existing && running(existing)) {
    console.error(`control plane already running (${existing.server}, dir ${existing.dir})`);
    console.log(`export KUBECONFIG=${existing.kubeconfigPath}`);
    return;
  }
  if (existing) await down();
  if (args.includes('--node')) {
    const log = (m: string) => console.error(`[node] ${m}`);
    const record = (node: NodeClusterState): State => {
      const state: State = { ...node.controlPlane, node };
      fs.writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
      return state;
    };
    const argocd = args.includes('--argocd');
    const flux = args.includes('--flux');
    const cluster = await startNodeCluster({ detached: true, log, onState: record, argocd, flux }).catch((err: unknown) => {
      if (process.env['KEEP_CP'] !== '1') fs.rmSync(stateFile, { force: true });
      throw err;
    });
    const state = record(cluster.state);
    if (args.includes('--upstream')) {
      const install = await installUpstream(cluster, { log, variant: args.includes('--server-tls') ? 'server-tls' : 'default' });
      log(`installing the doctor's chart from the registry beside it (release ${UPSTREAM_DOCTOR_RELEASE})`);
      installDoctorChart(cluster, UPSTREAM_DOCTOR_RELEASE);
      log(
        `up: ${state.server}; node ${NODE_NAME} Ready; the real product (${install.images.controller}) and cert-manager; try: helm test ${UPSTREAM_DOCTOR_RELEASE} -n ${INSTALL_NAMESPACE} --logs`,
      );
    } else {
      log('deploying the sample install as pods');
      await deploySampleInstall(cluster.kc);
      await applyObjects(cluster.kc, [pullSecret(cluster.registry, INSTALL_NAMESPACE)]);
      log(
        `up: ${state.server}; node ${NODE_NAME} Ready; pods ${POD_CIDR}, Services ${SERVICE_CIDR}; sample workload in ${WORKLOAD_NAMESPACE}`,
      );
      log('try: the chart and the doctor image are in the node registry (pulled with the pull secret registry-creds):');
      log(
        `  helm ${registryLoginArgs(cluster.registry).join(' ')} && helm install doctor ${doctorChartArgs(cluster.registry).join(' ')} -n ${INSTALL_NAMESPACE} ${doctorImageValues(
          cluster.registry,
        )
          .map((v) => `--set ${v}`)
          .join(' ')} && helm test doctor -n ${INSTALL_NAMESPACE} --logs`,
      );
    }
    const { registry } = cluster;
    log(
      `image registry: https://${registry.host} (user ${registry.user}, password ${registry.password}, CA ${registry.caFile}; containerd trusts it)`,
    );
    if (cluster.argocd !== undefined)
      log(`Argo CD: namespace argocd; the chart ${cluster.argocd.chartVersion} in the Helm repository ${cluster.argocd.helmRepoUrl}`);
    if (cluster.flux !== undefined)
      log(
        `Flux: source-controller and helm-controller (namespace ${FLUX_NAMESPACE}); the chart as an OCIRepository: ${doctorChart(registry)} (chart/README.md, "Flux")`,
      );
    log(`logs: ${cluster.state.dir}/*.log, ${cluster.state.dir}/argocd/*.log, ${cluster.state.dir}/flux/*.log and ${state.dir}`);
    // The registry's coordinates for the README's commands, then KUBECONFIG last (what scripts take).
    console.log(
      `export ICD_REGISTRY=${registry.host} ICD_REGISTRY_CA=${registry.caFile} ICD_REGISTRY_USER=${registry.user} ICD_REGISTRY_PASSWORD=${registry.password}`,
    );
    console.log(`export KUBECONFIG=${state.kubeconfigPath}`);
    return;
  }
  const cp = await startControlPlane({
    detached: true,
    startControllerManager: args.includes('--with-controller-manager') || process.env['CP_CONTROLLER_MANAGER'] === '1',
    log: (m) => console.error(`[controlplane] ${m}`),
  });
  const state = controlPlaneState(cp);
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
  console.error(`[controlplane] up: ${cp.server} (kubernetes ${cp.kubernetesVersion}); dir ${cp.dir}; state ${stateFile}`);
  console.error(`[controlplane] audit log: ${cp.auditLogPath}`);
  console.log(`export KUBECONFIG=${cp.kubeconfigPath}`);
}

/**
 * `down --orphans`: the recorded clusters first (cluster:up's state file, a test run's shared node),
 * each taken down from its record, then whatever a killed run left unrecorded, by name.
 */
async function downOrphans(): Promise<void> {
  if (readState() !== undefined) await down();
  const shared = process.env['SHARED_NODE_FILE'] || sharedNodeFile();
  if (sharedNodeRecorded(shared)) {
    console.error(`[orphans] the shared node of a test run is recorded in ${shared}: taking it down`);
    for (const p of await stopSharedNode(shared, (m) => console.error(`[node] ${m}`))) console.error(`[orphans] left behind: ${p}`);
  }
  const scope = os.tmpdir();
  console.error(`[orphans] looking under ${scope} and in the machine for what a killed run left`);
  const left = await removeOrphans(scope, (m) => console.error(`[orphans] ${m}`));
  for (const l of left) console.error(`[orphans] left behind: ${l}`);
  console.error(left.length === 0 ? '[orphans] nothing left' : `[orphans] ${String(left.length)} left`);
  if (left.length > 0) process.exitCode = 1;
}

async function down(): Promise<void> {
  const state = readState();
  if (!state) {
    console.error(`no control plane state at ${stateFile}`);
    return;
  }
  if (state.node !== undefined) {
    const problems = await stopNodeCluster(state.node, (m) => console.error(`[node] ${m}`));
    const left = nodeLeftovers(state.node);
    for (const p of [...problems, ...left]) console.error(`[node] left behind: ${p}`);
    if (left.length > 0) process.exitCode = 1;
  } else await stopControlPlane(state);
  fs.rmSync(stateFile, { force: true });
  console.error(`[controlplane] stopped${process.env['KEEP_CP'] === '1' ? ` (kept ${state.dir})` : ''}`);
}

function status(): void {
  const state = readState();
  if (!state) {
    console.log('down');
    process.exitCode = 1;
    return;
  }
  console.log(`${running(state) ? 'running' : 'dead'} ${state.server} ${state.dir}`);
  if (!running(state)) process.exitCode = 1;
}

const [cmd, ...rest] = process.argv.slice(2);
try {
  if (cmd === 'up') await up(rest);
  else if (cmd === 'down' && rest.includes('--orphans')) await downOrphans();
  else if (cmd === 'down') await down();
  else if (cmd === 'status') status();
  else {
    console.error(
      'usage: cli.ts up [--with-controller-manager | --node [--argocd] [--flux] [--upstream [--server-tls]]] | down [--orphans] | status',
    );
    process.exitCode = 2;
  }
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
