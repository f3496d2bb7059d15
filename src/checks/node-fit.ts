import type { InstallPod } from '../cluster/state/state.ts';
import { goQuote } from '../go/quote.ts';
import type { Finding } from '../report/finding.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import { listSome } from './helpers.ts';
import {
  NAMED_RESOURCES,
  amountsOf,
  describeAmounts,
  effectiveRequests,
  refusedQuantities,
  shortfalls,
  type Amounts,
} from './pod-requests.ts';
import { ZERO, formatQuantity } from './quantity.ts';
import { isWaitingForNode } from '../cluster/kinds/pod-waiting.ts';
import type { NodeRecord } from '../cluster/kinds/node.ts';
import type { PodRequests } from '../cluster/kinds/pod.ts';

const CODES = {
  API001,
  NF001: {
    status: 'FAIL',
    meaning: 'A pending pod of the install fits no Ready, schedulable node: no single node has the allocatable for all of its requests.',
    hint: "Lower the pod's requests, or add a node (or a node pool the autoscaler can grow) whose allocatable holds all of them at once, extended resources such as GPUs included.",
    fix: "1. Compare the pod's requests, which the finding lists, with what the nodes can give: kubectl describe nodes (Allocatable), and the nodes the finding says lack what. 2. Lower the requests in the workload's pod template (resources.requests), or add a node, or a node pool the cluster autoscaler can grow, that holds all of them at once, GPUs and other extended resources included. 3. If no node is Ready and schedulable, repair the NotReady ones or uncordon them (kubectl uncordon <node>).",
  },
  NF002: {
    status: 'WARN',
    meaning: "A pod of the install is Unschedulable although some node's allocatable would fit it (capacity in use, taints, affinity).",
    hint: "Read the scheduler's message in the finding: free capacity on a fitting node, or relax the taints, node selectors or affinity that keep the pod off it.",
    fix: '1. Read why the scheduler refuses it: the finding quotes its message; kubectl -n <namespace> describe pod <name> shows the Events. 2. Capacity in use on the fitting nodes the finding names: free room there, or grow the cluster. 3. Taints, nodeSelector or affinity: add the matching toleration to the pod template, or relax the selector or the affinity.',
  },
  NF003: {
    status: 'OK',
    meaning: 'A pending pod of the install fits the allocatable of at least one Ready, schedulable node.',
    hint: 'Nothing to do; the scheduler has not placed it yet.',
    fix: 'Nothing needs doing: the pending pod fits at least one Ready, schedulable node; the scheduler has not placed it yet. If it stays Pending, run the doctor again: a lasting refusal by the scheduler shows as NF002.',
  },
  NF004: {
    status: 'WARN',
    meaning:
      'A pending pod of the install requests a quantity the API server would refuse (text it cannot read, or a negative amount), so its fit was not judged.',
    hint: 'Write the request as Kubernetes reads a quantity (500m, 1.5, 16Gi, 1e3) and not below zero; a cluster would refuse the pod, so this comes from files given to doctor -f.',
    fix: '1. Correct the request in the files given to doctor -f: write each quantity as Kubernetes reads one (500m, 1.5, 16Gi, 1e3), never below zero. 2. A cluster would refuse such a pod, so the fault is in what produced the files: fix the Helm values or the template, render again and run doctor -f again.',
  },
} as const satisfies Record<string, CodeDeclaration>;

/** How many nodes a message names before it says "and N more". */
const NAMED_NODES = 3;

interface Candidate {
  readonly node: NodeRecord;
  readonly allocatable: Amounts;
}

/** Why the nodes that were not considered were left out, e.g. `2 not considered: a NotReady, b cordoned`. */
function excluded(nodes: readonly NodeRecord[]): string {
  const out = nodes.filter((n) => !n.ready || n.unschedulable).map((n) => `${n.name} ${!n.ready ? 'NotReady' : 'cordoned'}`);
  return out.length === 0 ? '' : `; not considered: ${listSome(out, NAMED_NODES, (name) => name)}`;
}

/** `node-a lacks nvidia.com/gpu (allocatable 0)`, for the first few nodes. */
function gaps(request: Amounts, candidates: readonly Candidate[]): string {
  return listSome(candidates, NAMED_NODES, ({ node, allocatable }) => {
    const missing = listSome(
      shortfalls(request, allocatable),
      NAMED_RESOURCES,
      (r) => `${r} (allocatable ${formatQuantity(allocatable.get(r) ?? ZERO, r)})`,
      ' and ',
    );
    return `${node.name} lacks ${missing}`;
  });
}

function requestText(request: Amounts): string {
  return request.size === 0 ? 'no resources' : describeAmounts(request);
}

function judgePod(
  emit: EmitFor<typeof CODES>,
  { pod }: InstallPod,
  requested: PodRequests | undefined,
  candidates: readonly Candidate[],
  nodes: readonly NodeRecord[],
): Finding {
  const resource = `pod/${pod.namespace}/${pod.name}`;
  const refused = refusedQuantities(requested);
  if (refused.length > 0) {
    return emit(
      'NF004',
      resource,
      `the pod requests ${listSome(refused, NAMED_RESOURCES, (q) => q)}, which the API server would refuse as a quantity, so whether it fits a node was not judged`,
    );
  }
  const request = effectiveRequests(requested);
  const asks = `the pod requests ${requestText(request)}`;
  if (candidates.length === 0) {
    return emit(
      'NF001',
      resource,
      `no node is Ready and schedulable (${nodes.length} listed${excluded(nodes)}), so this pending pod cannot be placed anywhere; ${asks}`,
    );
  }
  const fitting = candidates.filter((c) => shortfalls(request, c.allocatable).length === 0);
  if (fitting.length === 0) {
    return emit(
      'NF001',
      resource,
      `no Ready, schedulable node has the allocatable for all of this pod's requests on its own (${requestText(request)}): ${gaps(request, candidates)}${excluded(nodes)}; the pod stays Pending until such a node joins (an autoscaler may add one)`,
    );
  }
  const names = listSome(fitting, NAMED_NODES, (c) => c.node.name);
  if (pod.unschedulable !== undefined) {
    const said = pod.unschedulable === '' ? 'without a message' : goQuote(pod.unschedulable);
    return emit(
      'NF002',
      resource,
      `the scheduler reports the pod Unschedulable (${said}) although ${names} ha${fitting.length === 1 ? 's' : 've'} the allocatable for ${requestText(request)}: requests of pods already there, taints, node selectors or affinity keep it off`,
    );
  }
  return emit(
    'NF003',
    resource,
    `the pending pod fits the allocatable of ${fitting.length} Ready, schedulable node(s) (${names}); ${asks}`,
  );
}

/**
 * NodeFit: every pod of the install that still waits for a node (phase Pending, not bound) is
 * compared with the allocatable of each Ready, uncordoned node. A pod fits only when one node holds
 * all of its effective request (see `effectiveRequests`); CPU on one node and the GPU on another is
 * no fit. Taints, affinity and capacity in use are the scheduler's business: when it calls a pod
 * Unschedulable although a node would fit, its message is quoted. The nodes are looked at only when
 * some pod is pending.
 */
export const nodeFit = defineCheck({
  name: 'NodeFit',
  codes: CODES,
  reads: { installPods: 'items', pendingPodRequests: 'items', nodes: 'items' },
  probes: {},
  judge({ state }, emit) {
    const pending = state.installPods.filter(({ pod }) => isWaitingForNode(pod));
    if (pending.length === 0) return [];
    const requests = new Map(state.pendingPodRequests.map((r) => [`${r.namespace}/${r.name}`, r.requests]));
    const nodes = state.nodes;
    const candidates = nodes.filter((n) => n.ready && !n.unschedulable).map((node) => ({ node, allocatable: amountsOf(node.allocatable) }));
    return pending.map((p) => judgePod(emit, p, requests.get(`${p.pod.namespace}/${p.pod.name}`), candidates, nodes));
  },
});
