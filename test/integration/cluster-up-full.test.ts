// The README's by-hand Helm test: `npm run cluster:up -- --full`, then `helm install` and
// `helm test --logs` with the printed KUBECONFIG, then `npm run cluster:down` leaves nothing running.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireBundle } from '../support/bundle.ts';
import { isAlive, missingBinaries, resolveBinaries } from '../support/controlplane/controlplane.ts';
import { PROJECT_ROOT } from '../support/fixtures.ts';

const bins = resolveBinaries();
const missing = [...missingBinaries(bins, true), ...(bins.helm4 !== undefined && existsSync(bins.helm4) ? [] : ['helm 4'])];
const skip = missing.length > 0 && process.env['CI'] !== 'true';
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; run hack/build-controlplane.sh)` : '';

describe.skipIf(skip)(`cluster:up --full, by hand${skipReason}`, () => {
  it('comes up, passes helm install + helm test --logs, and cluster:down stops every process', () => {
    requireBundle();
    const work = mkdtempSync(join(tmpdir(), 'icd-up-full-'));
    const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? work, CONTROLPLANE_STATE_FILE: join(work, 'state.json'), XDG_RUNTIME_DIR: work, TMPDIR: work };
    const helmEnv = { HELM_CACHE_HOME: join(work, 'helm-cache'), HELM_CONFIG_HOME: join(work, 'helm-config'), HELM_DATA_HOME: join(work, 'helm-data') };
    const cli = (...args: string[]) => spawnSync(process.execPath, ['test/support/controlplane/cli.ts', ...args], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 240_000 });
    const up = cli('up', '--full');
    expect(up.status, up.stderr).toBe(0);
    const last = up.stdout.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^export KUBECONFIG=\S+$/);
    const kubeconfig = last.slice('export KUBECONFIG='.length);
    const state = JSON.parse(readFileSync(env.CONTROLPLANE_STATE_FILE, 'utf8')) as { fullPid: number; pids: Record<string, number> };
    try {
      const helm = (...args: string[]) =>
        spawnSync(bins.helm4 as string, [...args, '-n', 'inference-cache-system'], { cwd: PROJECT_ROOT, env: { ...env, ...helmEnv, KUBECONFIG: kubeconfig }, encoding: 'utf8', timeout: 120_000 });
      const installed = helm('install', 'doctor', 'chart');
      expect(installed.status, installed.stderr).toBe(0);
      const tested = helm('test', 'doctor', '--logs');
      expect(tested.status, `${tested.stdout}\n${tested.stderr}`).toBe(0);
      expect(tested.stdout).toContain('"code": "SN004"');
    } finally {
      const down = cli('down');
      expect(down.status, down.stderr).toBe(0);
    }
    for (const pid of [state.fullPid, ...Object.values(state.pids)]) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(existsSync(env.CONTROLPLANE_STATE_FILE)).toBe(false);
  }, 300_000);
});
