// A test run killed midway (SIGKILL, as CI's time limit or a closed terminal does) leaves its node behind:
// processes started detached, mounts, cgroups, the pods' network namespaces, the bridge, iptables chains
// and ipsets, folders. `npm run cluster:down -- --orphans` finds all of it by the project's names,
// without the state file that recorded it, and removes it; the next run then starts clean.
// Its subject is a node of its own (a vitest run inside this one starts it), so the shared node is taken
// down first, and the sequencer runs this suite before the others (vitest.config.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { BRIDGE } from '../../dev/cluster/node/addresses.ts';
import { nodeChanges } from '../../dev/cluster/node/baseline.ts';
import { kubepodsCgroups } from '../../dev/cluster/node/cgroups.ts';
import { links, netns } from '../../dev/cluster/node/host-network.ts';
import { missingForNode, nodeBinaries } from '../../dev/cluster/node/node.ts';
import { findOrphans } from '../../dev/cluster/node/orphans.ts';
import { readSharedNode } from '../../dev/cluster/node/shared-node.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import { pollUntil } from '../../dev/poll.ts';
import { HELM_MUST_RUN } from '../support/helm.ts';
import { acquireNode, releaseNode, stopNode } from '../support/shared-node.ts';

const missing = missingForNode();
if (missing.length > 0 && HELM_MUST_RUN) throw new Error(`the orphans suite must run under CI: missing ${missing.join(', ')}`);
const skipReason = missing.length > 0 ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md)` : '';
const log = (l: string) => console.info(`[orphans] ${l}`);

/** Every process whose command line names `dir`. */
function processesNaming(dir: string): string[] {
  return spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.includes(`${dir}/`));
}

describe.skipIf(missing.length > 0)(`a killed run's leftovers found by name and removed (cluster:down --orphans)${skipReason}`, () => {
  const work = mkdtempSync(join(tmpdir(), 'icd-orphans-'));
  const stateFile = join(work, 'shared-node.json');
  let acquired = false;

  beforeAll(async () => {
    requireBundle();
    expect(await stopNode(log)).toEqual([]);
  }, 300_000);
  afterAll(async () => {
    if (acquired) await releaseNode(log);
    rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it('a run killed while its node runs leaves it behind; --orphans finds and removes every piece without the state file', async () => {
    // A run of the node's suites in a folder of its own, killed (its vitest and its workers) once its node has started.
    const output = openSync(join(work, 'killed-run.log'), 'w');
    const run = spawn(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'node', 'test/integration/shared-node.test.ts'],
      {
        cwd: PROJECT_ROOT,
        detached: true,
        stdio: ['ignore', output, output],
        env: { ...process.env, TMPDIR: work, SHARED_NODE_FILE: stateFile, TEST_TIMES_FILE: '' },
      },
    );
    try {
      await pollUntil('the killed run has started its node', { timeoutMs: 600_000, intervalMs: 2_000 }, () => {
        if (run.exitCode !== null)
          throw new Error(
            `the run ended by itself (${String(run.exitCode)}):\n${readFileSync(join(work, 'killed-run.log'), 'utf8').slice(-3000)}`,
          );
        return readSharedNode(stateFile)?.baseline !== undefined || 'not yet';
      });
    } finally {
      if (run.pid !== undefined) process.kill(-run.pid, 'SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 2_000));
    const node = readSharedNode(stateFile)?.node;
    expect(node).toBeDefined();
    const before = findOrphans(work);
    log(`left by the killed run: ${String(before.length)} things, e.g. ${before.slice(0, 6).join('; ')}`);
    for (const kind of ['process', 'cgroup', 'mount', 'network namespace', 'interface', 'iptables chain', 'folder'])
      expect(
        before.some((l) => l.startsWith(`${kind} `)),
        kind,
      ).toBe(true);

    // Without the record: found by name alone.
    rmSync(stateFile, { force: true });
    const down = spawnSync(process.execPath, ['dev/cluster/cli.ts', 'down', '--orphans'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, TMPDIR: work, SHARED_NODE_FILE: stateFile, CONTROLPLANE_STATE_FILE: join(work, 'no-cluster-up.json') },
    });
    log(down.stderr.split('\n').slice(-8).join(' | '));
    expect(down.status, down.stderr).toBe(0);
    expect(down.stderr).toContain('[orphans] nothing left');
    expect(findOrphans(work)).toEqual([]);
    expect(processesNaming(work)).toEqual([]);
    expect(links()).not.toContain(BRIDGE);
    expect(netns().filter((n) => n.startsWith('cni-'))).toEqual([]);
    expect(kubepodsCgroups()).toEqual([]);
    expect(existsSync(node?.dir ?? '/nonexistent')).toBe(false);
  }, 900_000);

  it('the next run starts clean: the shared node comes up and is as it was', async () => {
    const cluster = await acquireNode({ log });
    acquired = true;
    const baseline = readSharedNode(inject('sharedNodeFile'))?.baseline;
    if (baseline === undefined) throw new Error('the shared node recorded no baseline');
    expect(await nodeChanges(nodeBinaries().kubectl, cluster.state.controlPlane.kubeconfigPath, baseline)).toEqual([]);
  }, 600_000);
});
