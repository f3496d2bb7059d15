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
import { CHART_DIR, HELM_MUST_RUN, helmBinaries, runHelm, type HelmBinary } from '../support/helm.ts';

const helm4 = helmBinaries().find((h) => h.name === 'Helm 4');
const missing = [
  ...missingBinaries(resolveBinaries(), true),
  ...(helm4 === undefined ? ['Helm 4'] : helm4.missing === '' ? [] : [helm4.missing]),
];
const skip = missing.length > 0 && !HELM_MUST_RUN;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; run hack/build-controlplane.sh)` : '';

describe.skipIf(skip)(`cluster:up --full, by hand${skipReason}`, () => {
  it('comes up, passes helm install + helm test --logs, and cluster:down stops every process', () => {
    requireBundle();
    const work = mkdtempSync(join(tmpdir(), 'icd-up-full-'));
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? work,
      CONTROLPLANE_STATE_FILE: join(work, 'state.json'),
      XDG_RUNTIME_DIR: work,
      TMPDIR: work,
    };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['test/support/controlplane/cli.ts', ...args], {
        cwd: PROJECT_ROOT,
        env,
        encoding: 'utf8',
        timeout: 240_000,
      });
    const up = cli('up', '--full');
    expect(up.status, up.stderr).toBe(0);
    const last = up.stdout.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^export KUBECONFIG=\S+$/);
    const kubeconfig = last.slice('export KUBECONFIG='.length);
    const state = JSON.parse(readFileSync(env.CONTROLPLANE_STATE_FILE, 'utf8')) as { fullPid: number; pids: Record<string, number> };
    try {
      const helm = (...args: string[]) =>
        runHelm(helm4 as HelmBinary, [...args, '--kubeconfig', kubeconfig, '-n', 'inference-cache-system']);
      const installed = helm('install', 'doctor', CHART_DIR);
      expect(installed.code, installed.stderr).toBe(0);
      const tested = helm('test', 'doctor', '--logs');
      expect(tested.code, `${tested.stdout}\n${tested.stderr}`).toBe(0);
      expect(tested.stdout).toContain('"code": "SN004"');
    } finally {
      const down = cli('down');
      expect(down.status, down.stderr).toBe(0);
    }
    for (const pid of [state.fullPid, ...Object.values(state.pids)]) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(existsSync(env.CONTROLPLANE_STATE_FILE)).toBe(false);
  }, 300_000);
});
