// `npm run demo`: the doctor against a throw-away install on a real control plane.
//
// Builds what is missing and nothing else (the bundle; etcd and kube-apiserver from Go modules on first
// use), starts the control plane, applies the sample install with the reference cache-plane server,
// adds a namespace of broken objects (and an engine pod no node can hold), runs `inferencecache doctor`
// with human output as an operator would, tears everything down and exits with the doctor's exit code.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describeError } from '../src/text/errors.ts';
import { BUNDLE, bundleIsStale, ensureBundle } from '../dev/bundle.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';
import { closedPort } from '../dev/process.ts';
import {
  ago,
  bindPod,
  condition,
  coreEvent,
  createBackend,
  createNode,
  createPod,
  createPodWithSpec,
  createTenant,
} from '../dev/cluster/objects.ts';
import { missingBinaries, resolveBinaries, startControlPlane } from '../dev/cluster/controlplane.ts';
import { createNamespace } from '../dev/cluster/manifests.ts';
import { startSampleInstall } from '../dev/cluster/sample-install-local.ts';

const BROKEN_NAMESPACE = 'demo-broken';
/** The demo cluster's one worker: a single-GPU node. */
const NODE = 'gpu-node-1';
const started = Date.now();

function step(text: string): void {
  process.stderr.write(`[demo ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}\n`);
}

function runOrExit(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    process.stderr.write(
      `demo: ${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? 'by a signal'}`})\n`,
    );
    process.exit(1);
  }
}

/** Objects an operator would want the doctor to catch, one per problem. */
async function createBrokenWorkload(kc: KubeConfig, closedEndpoint: string): Promise<void> {
  await createNamespace(kc, BROKEN_NAMESPACE);
  const serving = { conditions: [condition('Ready', 'True')], matchedEnginePods: 1, firstKVEventObservedAt: ago(86_400_000) };
  await createBackend(
    kc,
    BROKEN_NAMESPACE,
    'stale-index',
    { engineSelector: { matchLabels: { app: 'stale' } } },
    {
      ...serving,
      indexParticipation: { prefixCount: 9, lastEventAt: ago(17 * 60_000) },
    },
  );
  await createBackend(
    kc,
    BROKEN_NAMESPACE,
    'lost-redis',
    { remoteStorage: { provider: 'Redis', ownership: 'Managed' } },
    {
      ...serving,
      indexParticipation: { prefixCount: 3, lastEventAt: ago(4_000) },
      remoteStorage: { endpoint: closedEndpoint },
    },
  );
  await createBackend(
    kc,
    BROKEN_NAMESPACE,
    'not-ready',
    { engineSelector: { matchLabels: { app: 'embed' } } },
    {
      conditions: [condition('Ready', 'False', 'EnginesMissing', 'no engine pod matches the selector')],
    },
  );
  await createPod(kc, BROKEN_NAMESPACE, 'stale-engine-0', { app: 'stale' });
  await bindPod(kc, BROKEN_NAMESPACE, 'stale-engine-0', NODE);
  await createPodWithSpec(
    kc,
    BROKEN_NAMESPACE,
    'embed-engine-0',
    { app: 'embed' },
    {
      containers: [
        {
          name: 'engine',
          image: 'engine:test',
          resources: { requests: { cpu: '4', memory: '24Gi', 'nvidia.com/gpu': '2' }, limits: { 'nvidia.com/gpu': '2' } },
        },
      ],
    },
  );
  const orphan = await createPod(kc, BROKEN_NAMESPACE, 'batch-engine-0', { app: 'batch', 'inferencecache.io/enabled': 'true' });
  await bindPod(kc, BROKEN_NAMESPACE, 'batch-engine-0', NODE);
  await coreEvent(
    kc,
    BROKEN_NAMESPACE,
    { name: 'batch-engine-0', uid: orphan },
    'NoMatchingCacheBackend',
    'pod asked for a cache but no CacheBackend selects it',
  );
  await createTenant(
    kc,
    BROKEN_NAMESPACE,
    'team-batch',
    { tenantID: 'team-batch', quota: { maxIndexEntries: 5_000 } },
    {
      indexEntries: 7_300,
      conditions: [condition('QuotaExceeded', 'True', 'OverQuota', 'oldest entries are being evicted')],
    },
  );
}

function runDoctor(args: string[]): Promise<number> {
  return new Promise((resolveCode) => {
    const child = spawn(process.execPath, [BUNDLE, ...args], { stdio: 'inherit' });
    child.on('exit', (code) => resolveCode(code ?? 3));
  });
}

async function main(): Promise<number> {
  if (bundleIsStale()) {
    step('building the bundle');
    ensureBundle();
  }
  if (missingBinaries(resolveBinaries()).length > 0) {
    step('building etcd and kube-apiserver from Go modules (first run only; several minutes)');
    runOrExit('bash', ['hack/build-tools.sh', 'etcd', 'kube-apiserver']);
  }
  step('starting etcd and kube-apiserver');
  const cp = await startControlPlane();
  const dir = mkdtempSync(join(tmpdir(), 'inferencecache-demo-'));
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    step('applying the sample install and starting the reference cache-plane server');
    const install = await startSampleInstall(kc, {
      server: cp.server,
      caFile: cp.caFile,
      dir,
      workloadNamespace: 'demo-healthy',
      nodeName: NODE,
    });
    try {
      step(
        `adding node ${NODE} (8 CPU, 32Gi, 1 GPU) and broken objects in namespace ${BROKEN_NAMESPACE}; the server is an older build without the /probe route`,
      );
      await createNode(kc, NODE, { allocatable: { cpu: '8', memory: '32Gi', 'nvidia.com/gpu': '1' } });
      await createBrokenWorkload(kc, `127.0.0.1:${await closedPort()}`);
      install.server.setFaults({ probe: { missing: true } });
      const args = [
        'doctor',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--server-endpoint',
        install.serverEndpoint,
        '--snapshot-token-file',
        install.tokenFile,
      ];
      step(`running: inferencecache ${args.join(' ')}`);
      process.stderr.write('\n');
      const code = await runDoctor(args);
      process.stderr.write('\n');
      step(`the doctor exited with ${code}; tearing down`);
      return code;
    } finally {
      await install.stop();
    }
  } finally {
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `npm run demo -- --upstream`: the real product instead of the sample install (scripts/demo-upstream.ts).
if (process.argv.includes('--upstream')) await import('./demo-upstream.ts');
else
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`demo: ${describeError(err)}\n`);
      process.exit(1);
    },
  );
