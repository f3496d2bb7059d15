// `npm run demo`, the README's first command, run the way a newcomer runs it: one process, a human
// report with problems and healthy objects, the doctor's exit code passed through.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../dev/paths.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

describe.skipIf(kubeconfig === '')(`the demo${skipReason}`, () => {
  it('prints a report with FAIL, WARN, INFO and OK findings and exits with its code', () => {
    const result = spawnSync(process.execPath, ['scripts/demo.ts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', TMPDIR: tmpdir(), NO_COLOR: '1' },
      timeout: 120_000,
    });
    expect(result.stderr).not.toMatch(/^demo: /m);
    expect(result.stdout).toMatch(/^FAIL\n {2}FAIL PB001 /m);
    expect(result.stdout).toMatch(/^WARN\n/m);
    expect(result.stdout).toMatch(/^ {2}OK {3}SN004 /m);
    for (const code of [
      'NF001',
      'CB001',
      'CB004',
      'CB005',
      'EP001',
      'OP001',
      'CT001',
      'CP001',
      'SV003',
      'CB006',
      'EP002',
      'CT002',
      'CP002',
    ]) {
      expect(result.stdout).toContain(` ${code} `);
    }
    const summary = /^Summary: .*\(exit (\d)\)$/m.exec(result.stdout);
    expect(summary?.[1]).toBe('2');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/tearing down/);
  }, 180_000);
});
