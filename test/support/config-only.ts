// What the suites that run the doctor as a user would (the bundle, the single executable, the krew
// plugin) judge a `doctor --config-only` run against the test control plane on: a namespace holding a
// CacheBackend with no status yet (CB001), the doctor's identity there, and the report that must come
// of it.
import type { KubeConfig } from '@kubernetes/client-node';
import { expect, inject } from 'vitest';
import { doctorIdentity, type Identity } from '../../dev/cluster/identity.ts';
import { createNamespace, installCrds } from '../../dev/cluster/manifests.ts';
import { createBackend, uniqueName } from '../../dev/cluster/objects.ts';
import type { JsonReport } from './json-report.ts';
import { parseReport } from './report-schema.ts';

/** A fresh namespace (named after `prefix`) with the CRDs, one CacheBackend without status, and the doctor's identity in it. */
export async function configOnlyNamespace(kc: KubeConfig, prefix: string): Promise<{ ns: string; id: Identity }> {
  await installCrds(kc);
  const ns = uniqueName(prefix);
  await createNamespace(kc, ns);
  await createBackend(kc, ns, 'no-status', {});
  const id = await doctorIdentity(kc, { namespace: ns, name: 'doctor', server: inject('server'), caFile: inject('caFile') });
  return { ns, id };
}

/**
 * Asserts that a `doctor --config-only -o json` run in such a namespace said nothing on stderr, read
 * the API (no API001), found the backend without status (CB001) and exited with its report's code;
 * returns the report.
 */
export function expectConfigOnlyReport(run: {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}): JsonReport {
  expect(run.stderr).toBe('');
  const report = parseReport(run.stdout) as JsonReport;
  expect(report.findings.filter((f) => f.code === 'API001')).toEqual([]);
  expect(report.findings.map((f) => f.code)).toContain('CB001');
  expect(run.code).toBe(report.summary.exitCode);
  return report;
}
