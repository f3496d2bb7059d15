// The single executables (`npm run build:exe`) against the test control plane: the amd64 one runs as a
// krew user runs it, with no Node on PATH and no HOME, and must print what the bundle under Node prints;
// the arm64 one is checked as a file (an AArch64 ELF holding the same bundle and the armed fuse) and
// run under user-mode emulation. The fault suite runs its cases with the amd64 executable too
// (support/faults/safe-run.ts), and krew.test.ts installs it through krew.
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { BUNDLE_DIR, bundleFiles } from '../../dev/bundle.ts';
import { ensureExecutables } from '../../dev/executable.ts';
import { RUNTIMES, type ExecutablePlatform } from '../../dev/node-runtime.ts';
import type { Identity } from '../../dev/cluster/identity.ts';
import { runBundle } from '../support/bundle.ts';
import { arm64EmulationMissing, underArm64Emulation } from '../support/emulation.ts';
import { configOnlyNamespace, expectConfigOnlyReport } from '../support/config-only.ts';
import { parseReport } from '../support/report-schema.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';
const noEmulation = arm64EmulationMissing();

/** The fuse Node's single-executable start-up looks for, as postject leaves it once the blob is in. */
const ARMED_FUSE = Buffer.from('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1');

/** An ELF file's class (2: 64-bit), byte order (1: little-endian) and machine. */
function elfHeader(file: Buffer): { magic: string; elfClass: number; order: number; machine: number } {
  return { magic: file.subarray(0, 4).toString('latin1'), elfClass: file[4] ?? 0, order: file[5] ?? 0, machine: file.readUInt16LE(18) };
}

describe.skipIf(kubeconfig === '')(`the single executables${skipReason}`, () => {
  const kc = new KubeConfig();
  let ns = '';
  let id: Identity;
  let amd64 = '';
  let arm64 = '';
  /** No PATH (this machine has a Node of its own in /usr/bin) and no HOME: what the executable needs, it carries. */
  const bare: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    [amd64 = '', arm64 = ''] = ensureExecutables(['linux-amd64', 'linux-arm64']);
    kc.loadFromFile(kubeconfig);
    ({ ns, id } = await configOnlyNamespace(kc, 'executable'));
  });

  const configOnly = () => ['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', 'json', '-n', ns];

  it('amd64: --version, with no PATH at all, says what the bundle says', async () => {
    const exe = await runBundle(['--version'], { command: [amd64], env: bare });
    const bundle = await runBundle(['--version']);
    expect(exe).toMatchObject({ code: 0, stderr: '' });
    expect(exe.stdout).toMatch(/^inferencecache version \S+ \(commit \w+\)\n$/);
    expect(exe.stdout).toBe(bundle.stdout);
  });

  it('amd64: doctor --config-only against the control plane, the same report as the bundle', async () => {
    const report = expectConfigOnlyReport(await runBundle(configOnly(), { command: [amd64], env: bare }));
    const bundle = await runBundle(configOnly());
    expect(parseReport(bundle.stdout)).toEqual(report);
  });

  it('amd64: a command that loads other chunks (explain, codes -o json) prints what the bundle prints', async () => {
    for (const args of [
      ['explain', 'CB004'],
      ['codes', '-o', 'json'],
      ['doctor', '--help'],
    ]) {
      const exe = await runBundle(args, { command: [amd64], env: bare });
      const bundle = await runBundle(args);
      expect({ args, code: exe.code, stdout: exe.stdout, stderr: exe.stderr }).toEqual({
        args,
        code: bundle.code,
        stdout: bundle.stdout,
        stderr: bundle.stderr,
      });
    }
  });

  it('both: an ELF of its platform holding every file of the bundle, byte for byte, and the armed fuse', () => {
    const names = bundleFiles();
    const files = names.map((f) => readFileSync(`${BUNDLE_DIR}/${f}`));
    for (const [platform, path] of [
      ['linux-amd64', amd64],
      ['linux-arm64', arm64],
    ] as [ExecutablePlatform, string][]) {
      const exe = readFileSync(path);
      expect(elfHeader(exe), platform).toEqual({ magic: '\u007fELF', elfClass: 2, order: 1, machine: RUNTIMES[platform].elfMachine });
      expect(exe.indexOf(ARMED_FUSE), `${platform}: the fuse`).toBeGreaterThan(0);
      const missing = files.map((bytes, i) => (exe.indexOf(bytes) < 0 ? names[i] : undefined)).filter((f) => f !== undefined);
      expect(missing, `${platform}: bundle files not in the executable`).toEqual([]);
    }
  });

  it.skipIf(noEmulation !== '')(
    `arm64 under emulation: --version and doctor --config-only against the control plane${noEmulation === '' ? '' : ` (skipped: ${noEmulation})`}`,
    async () => {
      const emulated = underArm64Emulation(arm64);
      const version = await runBundle(['--version'], { command: emulated, env: bare });
      expect(version).toMatchObject({ code: 0, stderr: '' });
      expect(version.stdout).toBe((await runBundle(['--version'])).stdout);
      const run = await runBundle(configOnly(), { command: emulated, env: bare, timeoutMs: 120_000 });
      expect(run.stderr).toBe('');
      expect(parseReport(run.stdout)).toEqual(parseReport((await runBundle(configOnly())).stdout));
    },
    180_000,
  );
});
