// The bundle as the image runs it, against the test control plane: its files alone in a read-only
// folder, Node 24, uid 65532, no HOME, reading nothing but its own files and its credentials (Node's
// --permission), once with a kubeconfig and once in-cluster from a mounted ServiceAccount token, as the
// chart's pod does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { runBundle } from '../support/bundle.ts';
import { bundleSandbox, removeSandbox, runSandboxed, type BundleSandbox } from '../support/sandbox.ts';
import type { Identity } from '../../dev/cluster/identity.ts';
import { configOnlyNamespace, expectConfigOnlyReport } from '../support/config-only.ts';
import { parseReport } from '../support/report-schema.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

/** Where a pod has its ServiceAccount token and CA; here, in the sandbox. */
const SA_DIR = 'serviceaccount';

describe.skipIf(kubeconfig === '')(`the sandboxed bundle against the test control plane${skipReason}`, () => {
  const kc = new KubeConfig();
  let ns = '';
  let id: Identity;
  let sandbox: BundleSandbox;

  /** Node flags: read the bundle's files and these files only. */
  const onlyReading = (...files: string[]) => ['--permission', ...[...sandbox.bundleFiles, ...files].map((f) => `--allow-fs-read=${f}`)];

  beforeAll(async () => {
    requireBundle();
    kc.loadFromFile(kubeconfig);
    ({ ns, id } = await configOnlyNamespace(kc, 'sandboxed'));
    sandbox = bundleSandbox({
      kubeconfig: readFileSync(id.kubeconfig, 'utf8'),
      [`${SA_DIR}/token`]: id.token,
      [`${SA_DIR}/ca.crt`]: readFileSync(inject('caFile'), 'utf8'),
      [`${SA_DIR}/namespace`]: ns,
    });
  });
  afterAll(() => {
    if (sandbox !== undefined) removeSandbox(sandbox);
  });

  it('--version on Node 24', async () => {
    const version = await runSandboxed(sandbox, [], { program: '', nodeArgs: ['-p', 'process.version'] });
    expect(version.stdout.trim()).toMatch(/^v24\./);
    const run = await runSandboxed(sandbox, ['--version'], { nodeArgs: onlyReading() });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^inferencecache version /);
  });

  it('--config-only with a kubeconfig: the same report as an ordinary run', async () => {
    const file = sandbox.files['kubeconfig'] ?? '';
    const args = ['doctor', '--kubeconfig', file, '--config-only', '-o', 'json', '-n', ns];
    // The doctor also looks for /dev/termination-log, where a pod's kubelet would collect its summary.
    const sandboxed = await runSandboxed(sandbox, args, { nodeArgs: onlyReading(file, '/dev/termination-log') });
    const report = expectConfigOnlyReport(sandboxed);
    const ordinary = await runBundle(args, { env: { PATH: process.env['PATH'] ?? '' } });
    expect(parseReport(ordinary.stdout)).toEqual(report);
  });

  it('--config-only in-cluster: the mounted ServiceAccount token and CA, no kubeconfig, no HOME', async () => {
    const url = new URL(inject('server'));
    const run = await runSandboxed(sandbox, ['doctor', '--config-only', '-o', 'json', '-n', ns], {
      nodeArgs: onlyReading('/var/run/secrets/*', '/run/secrets/*', '/dev/termination-log'),
      env: { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port },
      pod: { '/var/run/secrets/kubernetes.io/serviceaccount': join(sandbox.dir, SA_DIR) },
    });
    expectConfigOnlyReport(run);
  });
});
