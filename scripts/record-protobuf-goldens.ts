// `node scripts/record-protobuf-goldens.ts`: records the golden answers of the protobuf decoder's unit
// test from a real API server. It starts a control plane of its own (built by hack/build-tools.sh),
// creates the sample of dev/cluster/protobuf-sample.ts in a fresh namespace, and lists its Pods and
// Events twice, in protobuf and in JSON, writing each answer's bytes as the API server sent them to
// test/golden/protobuf/ (pods.pb, pods.json, events.pb, events.json, and recorded.json naming the
// Kubernetes version). Run it again after changing the sample or the pinned Kubernetes version.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createNamespace } from '../dev/cluster/manifests.ts';
import { apiRequest, missingBinaries, resolveBinaries, startControlPlane } from '../dev/cluster/controlplane.ts';
import { createProtobufSample } from '../dev/cluster/protobuf-sample.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';

const OUT = join(PROJECT_ROOT, 'test/golden/protobuf');
const NAMESPACE = 'protobuf-sample';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** GETs `path` with `accept`, and resolves with the body's bytes and the answer's content type. */
async function get(server: string, caFile: string, token: string, path: string, accept: string): Promise<{ type: string; body: Buffer }> {
  const answer = await apiRequest(server, caFile, token, 'GET', path, undefined, { accept, timeoutMs: 30_000 });
  if (answer.status !== 200) throw new Error(`GET ${path}: HTTP ${answer.status}: ${answer.body}`);
  return { type: answer.contentType, body: answer.bytes };
}

const bins = resolveBinaries();
const missing = missingBinaries(bins);
if (missing.length > 0) {
  process.stderr.write(`record-protobuf-goldens: missing ${missing.join(', ')}; run npm run tools:build first\n`);
  process.exit(1);
}
const cp = await startControlPlane({ binaries: bins });
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfigPath);
  await createNamespace(kc, NAMESPACE);
  await createProtobufSample(kc, NAMESPACE);
  mkdirSync(OUT, { recursive: true });
  for (const resource of ['pods', 'events']) {
    const path = `/api/v1/namespaces/${NAMESPACE}/${resource}`;
    const binary = await get(cp.server, cp.caFile, cp.adminToken, path, PROTOBUF);
    if (!binary.type.startsWith(PROTOBUF)) throw new Error(`${path} came as ${binary.type}, not in protobuf`);
    const json = await get(cp.server, cp.caFile, cp.adminToken, path, 'application/json');
    writeFileSync(join(OUT, `${resource}.pb`), binary.body);
    writeFileSync(join(OUT, `${resource}.json`), json.body);
    process.stdout.write(`${resource}: ${binary.body.length} bytes in protobuf, ${json.body.length} in JSON\n`);
  }
  const recorded = { kubernetes: cp.kubernetesVersion, namespace: NAMESPACE, by: 'node scripts/record-protobuf-goldens.ts' };
  writeFileSync(join(OUT, 'recorded.json'), `${JSON.stringify(recorded, null, 2)}\n`);
} finally {
  await cp.stop();
}
