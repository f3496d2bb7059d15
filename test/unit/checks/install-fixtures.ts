/**
 * Builders for the tables of the checks beyond upstream (NodeFit, ImagePullability,
 * NetworkPolicyReachability): install pods, nodes, ServiceAccounts, pull-secret lookups and
 * NetworkPolicies, each a complete record with overrides.
 */
import type { DoctorPod } from '../../../src/cluster/gather/pod-identity.ts';

import type { CheckInput } from '../../../src/checks/run.ts';
import { input, ok, pod, state, type InputOverrides, type PodFixture, type StateFixture } from './fixtures.ts';
import type { IngressRule, NetworkPolicyRecord, PolicyPeer } from '../../../src/cluster/kinds/network-policy.ts';
import type { LabelSelector } from '../../../src/cluster/kinds/label-selector.ts';
import type { NodeRecord } from '../../../src/cluster/kinds/node.ts';
import type { Pod, PodRequests, ResourceList } from '../../../src/cluster/kinds/pod.ts';
import type { PullSecretLookup } from '../../../src/cluster/kinds/secret.ts';
import type { ServiceAccount } from '../../../src/cluster/kinds/service-account.ts';

export const SERVER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'server' } as const;
export const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'controller' } as const;
export const WORKLOAD_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'cache' } as const;

/** Requests of one container, no init containers. */
export function requests(containers: readonly ResourceList[], o: Partial<PodRequests> = {}): PodRequests {
  return { containers, initContainers: [], ...o };
}

/** A pending, unbound install workload pod `ns1/<name>` with the given requests. */
export function pendingPod(name: string, req: PodRequests | undefined, o: Partial<PodFixture> = {}): PodFixture {
  return pod(name, { labels: { ...WORKLOAD_LABELS }, phase: 'Pending', ...(req === undefined ? {} : { requests: req }), ...o });
}

/** The server pod `ns1/server-0`, Running on node `n1`, with the named port `snapshot` = 8081/TCP. */
export function serverPod(o: Partial<Pod> = {}): Pod {
  return pod('server-0', {
    labels: { ...SERVER_LABELS },
    phase: 'Running',
    nodeName: 'n1',
    namedPorts: [
      { name: 'grpc', port: 9090, protocol: 'TCP' },
      { name: 'snapshot', port: 8081, protocol: 'TCP' },
    ],
    ...o,
  });
}

/** A Ready, schedulable node with the given allocatable. */
export function node(name: string, allocatable: ResourceList, o: Partial<NodeRecord> = {}): NodeRecord {
  return { name, ready: true, unschedulable: false, allocatable, ...o };
}

export function serviceAccount(name: string, pullSecrets: readonly string[], namespace = 'ns1'): ServiceAccount {
  return { namespace, name, uid: `${name}-uid`, imagePullSecrets: pullSecrets };
}

export const VALID_DOCKERCONFIGJSON: PullSecretLookup = {
  kind: 'found',
  type: 'kubernetes.io/dockerconfigjson',
  content: { kind: 'credentials', key: '.dockerconfigjson', registries: 1 },
};

/** Pull-secret lookups keyed `ns1/<name>`. */
export function secrets(entries: Readonly<Record<string, PullSecretLookup>>, namespace = 'ns1'): ReadonlyMap<string, PullSecretLookup> {
  return new Map(Object.entries(entries).map(([name, lookup]) => [`${namespace}/${name}`, lookup]));
}

export function selector(
  matchLabels: Readonly<Record<string, string>> = {},
  matchExpressions: LabelSelector['matchExpressions'] = [],
): LabelSelector {
  return { matchLabels, matchExpressions };
}

/** An ingress rule from the given peers (none: from anywhere) to the given ports (none: every port). */
export function rule(from: readonly PolicyPeer[], ports: IngressRule['ports'] = []): IngressRule {
  return { from, ports };
}

export function tcp(port: number | string, endPort?: number): IngressRule['ports'][number] {
  return { protocol: 'TCP', port, ...(endPort === undefined ? {} : { endPort }) };
}

/** A NetworkPolicy in `ns1` selecting the server pods, Ingress type, with the given rules. */
export function netpol(name: string, ingress: readonly IngressRule[], o: Partial<NetworkPolicyRecord> = {}): NetworkPolicyRecord {
  return {
    namespace: 'ns1',
    name,
    uid: `${name}-uid`,
    podSelector: selector({ ...SERVER_LABELS }),
    policyTypes: ['Ingress'],
    ingress,
    ...o,
  };
}

/** The upstream fence: 8080 and 9090 from anywhere, 8081 (by the given port) only from controller pods of the namespace. */
export function upstreamFence(port: number | string = 8081): NetworkPolicyRecord {
  return netpol('inference-cache-server-snapshot', [
    rule([], [tcp(8080), tcp(9090)]),
    rule([{ podSelector: selector({ ...CONTROLLER_LABELS }) }], [tcp(port)]),
  ]);
}

/** The doctor as a pod of `namespace` with the given labels (undefined: the labels file was unreadable). */
export function doctorPod(namespace: string, labels: Readonly<Record<string, string>> | undefined): DoctorPod {
  return labels === undefined
    ? { namespace, labelsFile: '/etc/podinfo/labels', labelsError: 'ENOENT' }
    : { namespace, labelsFile: '/etc/podinfo/labels', labels };
}

/**
 * A live-run input: every read of the new checks present and empty unless overridden (a plain
 * `given()` leaves them absent, which the new checks read as "not gathered").
 */
export function live(s: StateFixture, o: InputOverrides & { readonly self?: DoctorPod } = {}): CheckInput {
  const { self, ...rest } = o;
  const base = input({
    ...rest,
    state: state({ nodes: ok([]), serviceAccounts: ok([]), pullSecrets: new Map(), networkPolicies: ok([]), ...s }),
  });
  return self === undefined ? base : { ...base, self };
}
