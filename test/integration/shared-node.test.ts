// The suites of the real node share one node (test/support/shared-node.ts): each must find it as it was.
// This suite holds the mechanism to that: what a suite adds (of every kind: a namespace with a running
// pod, a custom resource definition and its object, cluster RBAC, an admission webhook, objects in the
// node's own namespaces) is seen, and removed, pod sandboxes and all; a change to the node's own
// objects is seen and reported, never silently kept; and a suite that ends without giving the node
// back (killed) leaves it to the next suite, which finds it put back before it starts.
import { CoordinationV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGES } from '../../dev/cluster/images.ts';
import { applyObjects, createNamespace } from '../../dev/cluster/manifests.ts';
import { NODE_NAME } from '../../dev/cluster/node/addresses.ts';
import { nodeBaseline, nodeChanges, type NodeBaseline } from '../../dev/cluster/node/baseline.ts';
import { netns } from '../../dev/cluster/node/host-network.ts';
import { missingForNode, nodeBinaries, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { pollUntil } from '../../dev/poll.ts';
import { HELM_MUST_RUN } from '../support/helm.ts';
import { acquireNode, releaseNode } from '../support/shared-node.ts';

const missing = missingForNode();
if (missing.length > 0 && HELM_MUST_RUN) throw new Error(`the shared node must run under CI: missing ${missing.join(', ')}`);
const skipReason = missing.length > 0 ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md)` : '';
const log = (l: string) => console.info(`[shared node] ${l}`);

const NS = 'shared-node-leftovers';
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'leftovers.shared-node.test' },
  spec: {
    group: 'shared-node.test',
    scope: 'Cluster',
    names: { plural: 'leftovers', singular: 'leftover', kind: 'Leftover' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

/** One object of every kind a suite leaves, a pod that runs (so a sandbox and its network namespace) among them. */
async function leaveEverything(cluster: NodeCluster): Promise<void> {
  await createNamespace(cluster.kc, NS);
  await applyObjects(cluster.kc, [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sleeper', namespace: NS },
      spec: { containers: [{ name: 'sleeper', image: IMAGES.pause, imagePullPolicy: 'Never' }], terminationGracePeriodSeconds: 1 },
    },
    CRD,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'shared-node-leftover' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'shared-node-leftover' },
      webhooks: [
        {
          name: 'leftover.shared-node.test',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Ignore',
          clientConfig: { service: { namespace: NS, name: 'nowhere', port: 443 } },
          rules: [{ apiGroups: ['shared-node.test'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['leftovers'] }],
        },
      ],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared-node-leftover', namespace: 'default' }, data: { a: 'b' } },
  ]);
  await cluster.kc.makeApiClient(CoordinationV1Api).createNamespacedLease({
    namespace: 'kube-system',
    body: { metadata: { name: 'shared-node-leftover' }, spec: { holderIdentity: 'x' } },
  });
  await pollUntil('the CRD served', { timeoutMs: 60_000, intervalMs: 1_000 }, async () => {
    try {
      await applyObjects(cluster.kc, [{ apiVersion: 'shared-node.test/v1', kind: 'Leftover', metadata: { name: 'one' } }]);
      return true;
    } catch (err) {
      return (err as Error).message;
    }
  });
  await pollUntil('the pod running', { timeoutMs: 120_000, intervalMs: 1_000 }, async () => {
    const pod = await cluster.kc.makeApiClient(CoreV1Api).readNamespacedPod({ namespace: NS, name: 'sleeper' });
    return pod.status?.phase === 'Running' || `phase ${pod.status?.phase ?? '?'}`;
  });
}

describe.skipIf(missing.length > 0)(`one node shared by the suites, each finding it as it was${skipReason}`, () => {
  let cluster: NodeCluster;
  let baseline: NodeBaseline;
  const kubectl = () => nodeBinaries().kubectl;
  const kubeconfig = () => cluster.state.controlPlane.kubeconfigPath;

  beforeAll(async () => {
    cluster = await acquireNode({ log });
    baseline = await nodeBaseline(kubectl(), kubeconfig());
  }, 900_000);
  afterAll(async () => {
    if (cluster !== undefined) await releaseNode(log);
  }, 300_000);

  it('a suite finds the node as it was: nothing added, nothing changed', async () => {
    expect(await nodeChanges(kubectl(), kubeconfig(), baseline)).toEqual([]);
    // The node's own objects are there: what a suite must not take away.
    expect(baseline.objects.map((o) => o.key)).toEqual(expect.arrayContaining([`Node//${NODE_NAME}`, 'Namespace//kube-system']));
  });

  it('what a suite adds is seen, every kind of it, and giving the node back removes it all, its pod sandbox too', async () => {
    await leaveEverything(cluster);
    const added = await nodeChanges(kubectl(), kubeconfig(), baseline);
    expect(added).toEqual(
      expect.arrayContaining([
        `added Namespace//${NS}`,
        `added Pod/${NS}/sleeper`,
        'added CustomResourceDefinition.apiextensions.k8s.io//leftovers.shared-node.test',
        'added Leftover.shared-node.test//one',
        'added ClusterRole.rbac.authorization.k8s.io//shared-node-leftover',
        'added ValidatingWebhookConfiguration.admissionregistration.k8s.io//shared-node-leftover',
        'added ConfigMap/default/shared-node-leftover',
        'added Lease.coordination.k8s.io/kube-system/shared-node-leftover',
      ]),
    );
    expect(added.some((c) => c.startsWith('added network namespaces '))).toBe(true);
    expect(await releaseNode(log)).toEqual([]);
    expect(await nodeChanges(kubectl(), kubeconfig(), baseline)).toEqual([]);
    expect(netns().sort()).toEqual([...baseline.netns]);
  }, 600_000);

  it("a change to the node's own objects is reported, not kept silently; undone by the suite, the node is as it was", async () => {
    const core = cluster.kc.makeApiClient(CoreV1Api);
    const label = (value: string | null) =>
      core.patchNode(
        { name: NODE_NAME, body: { metadata: { labels: { 'shared-node.test/changed': value } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await label('yes');
    try {
      const left = await releaseNode(log);
      expect(left).toHaveLength(1);
      expect(left[0]).toMatch(new RegExp(`^changed Node//${NODE_NAME}: .*shared-node\\.test/changed`));
    } finally {
      await label(null);
    }
    expect(await releaseNode(log)).toEqual([]);
  }, 300_000);

  it('a suite killed before giving the node back: the next one finds it put back before it starts', async () => {
    await leaveEverything(cluster);
    expect(await nodeChanges(kubectl(), kubeconfig(), baseline)).not.toEqual([]);
    // What the next suite's beforeAll does.
    const next = await acquireNode({ log });
    expect(next.state.dir).toBe(cluster.state.dir);
    expect(await nodeChanges(kubectl(), kubeconfig(), baseline)).toEqual([]);
  }, 600_000);
});
