// The by-hand Helm test on the real node (docs/real-node.md#helm-test): `npm run cluster:up -- --node --flux`,
// then `helm install` and `helm test --logs` with the printed KUBECONFIG, then `npm run cluster:down`, which
// exits non-zero when anything of the cluster is left in the machine (it checks processes, mounts, cgroups,
// network namespaces, interfaces, iptables chains and tables, ipsets, folders and sysctls).
// Its subject is a node of its own, which cluster:up starts: the shared node of the other suites
// (test/support/shared-node.ts) is taken down first, and the sequencer runs this suite before them
// (vitest.config.ts), so it normally has not started yet.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { isAlive } from '../../dev/cluster/controlplane.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import { HELM_MUST_RUN, helmBinaries, runHelm, type HelmBinary } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import { NODE_NAME } from '../../dev/cluster/node/addresses.ts';
import { FLUX_PROCESSES, missingForFlux } from '../../dev/cluster/node/flux.ts';
import { missingForNode, nodeBinaries, type NodeClusterState } from '../../dev/cluster/node/node.ts';
import { doctorChartArgs, doctorImageValues, registryLoginArgs, type NodeRegistry } from '../../dev/cluster/node/registry.ts';
import { stopNode } from '../support/shared-node.ts';

const helm4 = helmBinaries().find((h) => h.name === 'Helm 4');
const missing = [
  ...missingForNode(),
  ...missingForFlux(),
  ...(helm4 === undefined ? ['Helm 4'] : helm4.missing === '' ? [] : [helm4.missing]),
];
if (missing.length > 0 && HELM_MUST_RUN) throw new Error(`cluster:up --node must run under CI: missing ${missing.join(', ')}`);
const skip = missing.length > 0;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md)` : '';

describe.skipIf(skip)(`cluster:up --node --flux, by hand${skipReason}`, () => {
  beforeAll(async () => {
    expect(await stopNode((l) => console.info(`[shared node] ${l}`))).toEqual([]);
  }, 300_000);

  it('comes up (kubectl get nodes: Ready), passes helm install + helm test --logs, and cluster:down leaves nothing', () => {
    requireBundle();
    ensureImage();
    const work = mkdtempSync(join(tmpdir(), 'icd-up-node-'));
    const env = { ...process.env, CONTROLPLANE_STATE_FILE: join(work, 'state.json') };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['dev/cluster/cli.ts', ...args], {
        cwd: PROJECT_ROOT,
        env,
        encoding: 'utf8',
        timeout: 600_000,
      });
    // With Flux's controllers too, so that cluster:down and its leftovers check are held to them.
    const up = cli('up', '--node', '--flux');
    expect(up.status, up.stderr).toBe(0);
    const last = up.stdout.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^export KUBECONFIG=\S+$/);
    const kubeconfig = last.slice('export KUBECONFIG='.length);
    const state = JSON.parse(readFileSync(env.CONTROLPLANE_STATE_FILE, 'utf8')) as { node: NodeClusterState };
    for (const name of FLUX_PROCESSES) expect(isAlive(state.node.pids[name] ?? 0), name).toBe(true);
    try {
      const nodes = spawnSync(nodeBinaries().kubectl, ['get', 'nodes', '--kubeconfig', kubeconfig], { encoding: 'utf8' });
      expect(nodes.status, nodes.stderr).toBe(0);
      expect(nodes.stdout).toMatch(new RegExp(`^${NODE_NAME}\\s+Ready\\s+<none>\\s+\\S+\\s+v1\\.35\\.4$`, 'm'));
      const helm = (...args: string[]) =>
        runHelm(helm4 as HelmBinary, [...args, '--kubeconfig', kubeconfig, '-n', 'inference-cache-system']);
      // As cluster:up says: log in to the node's registry, install the chart from it; the kubelet pulls the image with the pull secret cluster:up made.
      const registry = state.node.registry as NodeRegistry;
      const login = runHelm(helm4 as HelmBinary, registryLoginArgs(registry));
      expect(login.code, login.stderr).toBe(0);
      const installed = helm(
        'install',
        'doctor',
        ...doctorChartArgs(registry),
        ...doctorImageValues(registry).flatMap((v) => ['--set', v]),
      );
      expect(installed.code, installed.stderr).toBe(0);
      const tested = helm('test', 'doctor', '--logs');
      expect(tested.code, `${tested.stdout}\n${tested.stderr}`).toBe(0);
      expect(tested.stdout).toContain('"code": "SN004"');
    } finally {
      const down = cli('down');
      expect(down.status, down.stderr).toBe(0);
      expect(down.stderr).not.toContain('left behind');
      rmSync(work, { recursive: true, force: true });
    }
    for (const pid of [...Object.values(state.node.pids), ...Object.values(state.node.controlPlane.pids)])
      expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(existsSync(state.node.dir)).toBe(false);
  }, 900_000);
});
