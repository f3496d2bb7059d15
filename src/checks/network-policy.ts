import { SERVER_POD_LABELS } from '../cluster/kinds/install.ts';
import {
  describeSelector,
  isEmptySelector,
  matchSelector,
  type KnownLabels,
  type Verdict,
  type LabelSelector,
} from '../cluster/kinds/label-selector.ts';
import type { DoctorPod } from '../cluster/gather/pod-identity.ts';

import { goQuote } from '../go/quote.ts';
import type { HttpResult } from '../probes/results.ts';
import type { Finding } from '../report/finding.ts';
import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import { cutText, listSome } from './helpers.ts';
import type { IngressRule, NetworkPolicyRecord, PolicyPeer, PolicyPort } from '../cluster/kinds/network-policy.ts';
import type { NamespaceLookup } from '../cluster/kinds/namespace.ts';
import type { Pod } from '../cluster/kinds/pod.ts';

const CODES = {
  NP001: {
    status: 'WARN',
    meaning: "A :8081 probe got no answer and the NetworkPolicies selecting the server pod do not admit the doctor's pod to port 8081.",
    hint: "Run the doctor as a pod the named policy admits (the chart's Helm test wears the controller's labels in the server's namespace), or add the missing labels the finding names.",
    fix: "1. Read the finding: it names each NetworkPolicy that selects the server pod and what the doctor's pod lacks for it (a label, its namespace, a namespace label). 2. Run the doctor as a pod that policy admits: the chart's Helm test runs it in the server's namespace with the controller's labels (values namespace and controller.labels). 3. If the controller's labels changed on purpose, set controller.labels to match; do not widen the policy to admit other pods. 4. If the policy admits nothing at all on 8081, the controller cannot reach the server either: restore the rule that admits it.",
  },
  NP002: {
    status: 'INFO',
    meaning: "A :8081 probe got no answer from outside the cluster; lists the sources the server pod's NetworkPolicies admit.",
    hint: "From a workstation :8081 is fenced off by design: run the chart's Helm test, or port-forward to the server and pass --server-endpoint.",
    fix: "1. Expected from a workstation: the server's NetworkPolicy admits only the sources the finding lists, the controller's pods among them. 2. To test the routes, run the chart's Helm test (helm test <release> --logs). 3. Or port-forward (kubectl -n inference-cache-system port-forward svc/inference-cache-server 9090 8081) and pass --server-endpoint localhost:9090; expect SN005 there without the controller's token.",
  },
  NP003: {
    status: 'INFO',
    meaning: 'A :8081 probe got no answer, but no NetworkPolicy blocks the doctor: the cause is elsewhere.',
    hint: "Look at the server pods (Running, listening on 8081), the Service's endpoints and any proxy or mesh on the path.",
    fix: "1. No NetworkPolicy blocks the doctor, so look at the server itself: its pods Running and Ready (kubectl -n inference-cache-system get pods -l app.kubernetes.io/component=server). 2. The Service's endpoints include port 8081 (kubectl -n inference-cache-system get endpoints inference-cache-server). 3. The server's arguments bind the controller-facing listener (--snapshot-bind-address=:8081). 4. Any proxy, mesh sidecar or node firewall on the path.",
  },
  NP004: {
    status: 'INFO',
    meaning: 'A :8081 probe got no answer and whether a NetworkPolicy is the cause could not be judged.',
    hint: 'Let the doctor read pods, NetworkPolicies and its own namespace (the chart grants these) and give it its labels file (the chart mounts it), then run again.',
    fix: "1. Let the doctor read pods and NetworkPolicies and get namespaces (the chart's ClusterRole grants these). 2. In a pod, give it its namespace in POD_NAMESPACE and its labels through the downward API at /etc/podinfo/labels, or pass --pod-labels-file; the chart does both. 3. If no server pod was found, check that the server pods carry app.kubernetes.io/name=inference-cache and app.kubernetes.io/component=server, and that -n does not leave their namespace out. Then run again.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** The port the server's controller-facing listener binds in its pod (upstream R-9.2.2). */
export const CONTROLLER_FACING_PORT = 8081;
/** The label every namespace carries with its own name. */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * How many policies, sources, ports, reasons or label requirements a message lists before it says
 * "and N more". A policy may hold any number of rules, peers and requirements; the finding stays one,
 * and so should the size of its message.
 */
const LISTED = 8;
/** The longest label selector or requirement written out whole. */
const MAX_SELECTOR_TEXT = 256;

/** What the check knows of the doctor's place in the cluster. */
interface Self {
  readonly pod: DoctorPod;
  readonly podLabels: KnownLabels;
  readonly namespaceLabels: KnownLabels;
  /** Why some labels are unknown, for the message. */
  readonly gaps: readonly string[];
}

/** One ingress rule that lets traffic reach port 8081, with the policy it belongs to. */
interface OpenRule {
  readonly policy: NetworkPolicyRecord;
  readonly index: number;
  readonly rule: IngressRule;
}

/** A peer of an open rule, judged against the doctor's pod. */
interface JudgedPeer extends OpenRule {
  readonly peer: PolicyPeer;
  readonly verdict: Verdict;
  readonly lacks: readonly string[];
}

function policyName(p: NetworkPolicyRecord): string {
  return `NetworkPolicy ${goQuote(`${p.namespace}/${p.name}`)}`;
}

/** Whether a policy isolates the pods it selects for ingress: `Ingress` listed, or no types written (implied). */
function isolatesIngress(p: NetworkPolicyRecord): boolean {
  return p.policyTypes === undefined || p.policyTypes.length === 0 || p.policyTypes.includes('Ingress');
}

function portAdmits(port: PolicyPort, server: Pod): boolean {
  if (port.protocol !== 'TCP') return false;
  if (port.port === undefined) return true;
  if (typeof port.port === 'number') {
    return port.endPort === undefined
      ? port.port === CONTROLLER_FACING_PORT
      : port.port <= CONTROLLER_FACING_PORT && CONTROLLER_FACING_PORT <= port.endPort;
  }
  return (server.namedPorts ?? []).some((p) => p.name === port.port && p.protocol === 'TCP' && p.port === CONTROLLER_FACING_PORT);
}

function describePort(port: PolicyPort, server: Pod): string {
  if (port.port === undefined) return `every ${port.protocol} port`;
  if (typeof port.port === 'number') return `${port.port}${port.endPort === undefined ? '' : `-${port.endPort}`}/${port.protocol}`;
  const named = (server.namedPorts ?? []).find((p) => p.name === port.port && p.protocol === port.protocol);
  return `${port.port}/${port.protocol} (${named === undefined ? 'no such port on the server pod' : `= ${named.port}`})`;
}

function ruleAdmitsPort(rule: IngressRule, server: Pod): boolean {
  return rule.ports.length === 0 || rule.ports.some((p) => portAdmits(p, server));
}

/** A label selector in words, cut when it is long. */
function selectorText(selector: LabelSelector): string {
  return cutText(describeSelector(selector), MAX_SELECTOR_TEXT);
}

/** Label requirements (`a=b (absent)`), a few of them, each cut when it is long. */
function requirementsText(requirements: readonly string[]): string {
  return listSome(requirements, LISTED, (r) => cutText(r, MAX_SELECTOR_TEXT));
}

/** Who a peer admits, in words: `pods with a=b in namespace "x"`. */
function describePeer(peer: PolicyPeer, policyNamespace: string): string {
  if (peer.ipBlock !== undefined) {
    const except = peer.ipBlock.except.length === 0 ? '' : ` except ${listSome(peer.ipBlock.except, LISTED, (cidr) => cidr)}`;
    return `addresses in ${peer.ipBlock.cidr}${except}`;
  }
  const pods =
    peer.podSelector === undefined || isEmptySelector(peer.podSelector) ? 'any pod' : `pods with ${selectorText(peer.podSelector)}`;
  if (peer.namespaceSelector === undefined) return `${pods} in namespace ${goQuote(policyNamespace)}`;
  const namespaces = isEmptySelector(peer.namespaceSelector) ? 'any namespace' : `namespaces with ${selectorText(peer.namespaceSelector)}`;
  return `${pods} in ${namespaces}`;
}

/** Whether a peer admits the doctor's pod, and if not, what it lacks. */
function judgePeer(peer: PolicyPeer, policyNamespace: string, self: Self): { verdict: Verdict; lacks: string[] } {
  if (peer.ipBlock !== undefined) return { verdict: 'no', lacks: ['it admits IP blocks only, and the doctor matches pod rules'] };
  const lacks: string[] = [];
  const verdicts: Verdict[] = [];
  if (peer.namespaceSelector === undefined) {
    if (self.pod.namespace !== policyNamespace) {
      verdicts.push('no');
      lacks.push(`the doctor runs in namespace ${goQuote(self.pod.namespace)}, not ${goQuote(policyNamespace)}`);
    }
  } else {
    const ns = matchSelector(peer.namespaceSelector, self.namespaceLabels);
    verdicts.push(ns.verdict);
    if (ns.unmet.length > 0) lacks.push(`namespace ${goQuote(self.pod.namespace)} lacks ${requirementsText(ns.unmet)}`);
    if (ns.undecided.length > 0) lacks.push(`namespace ${goQuote(self.pod.namespace)} may lack ${requirementsText(ns.undecided)}`);
  }
  if (peer.podSelector !== undefined) {
    const pod = matchSelector(peer.podSelector, self.podLabels);
    verdicts.push(pod.verdict);
    if (pod.unmet.length > 0) lacks.push(`the doctor's pod lacks ${requirementsText(pod.unmet)}`);
    if (pod.undecided.length > 0) lacks.push(`the doctor's pod may lack ${requirementsText(pod.undecided)}`);
  }
  const verdict: Verdict = verdicts.includes('no') ? 'no' : verdicts.includes('unknown') ? 'unknown' : 'yes';
  return { verdict, lacks };
}

/** The policies that admit nothing to 8081. */
function closedPolicies(selecting: readonly NetworkPolicyRecord[], open: readonly OpenRule[]): NetworkPolicyRecord[] {
  const opened = new Set(open.map((o) => o.policy));
  return selecting.filter((p) => !opened.has(p));
}

/** The ports a policy admits when none is 8081, so the message can say so. */
function describeClosed(p: NetworkPolicyRecord, server: Pod): string {
  if (p.ingress.length === 0) return `${policyName(p)} admits no ingress at all`;
  const ports = new Set(p.ingress.flatMap((r) => r.ports.map((port) => describePort(port, server))));
  return `${policyName(p)} admits only ${listSome([...ports], LISTED, (port) => port)}`;
}

/** `pods with … in namespace "x" (NetworkPolicy "x/p")`, one entry per peer of the open rules. */
function admittedSources(open: readonly OpenRule[]): string[] {
  return [
    ...new Set(
      open.flatMap(({ policy, rule }) => rule.from.map((peer) => `${describePeer(peer, policy.namespace)} (${policyName(policy)})`)),
    ),
  ];
}

function namespaceKnowledge(pod: DoctorPod, lookup: NamespaceLookup | undefined): { known: KnownLabels; gap?: string } {
  const partial = { labels: { [NAMESPACE_NAME_LABEL]: pod.namespace }, complete: false };
  if (lookup?.kind === 'found' && lookup.labels !== undefined) return { known: { labels: lookup.labels, complete: true } };
  if (lookup === undefined || lookup.kind === 'found')
    return { known: partial, gap: `the labels of namespace ${goQuote(pod.namespace)} were not read` };
  if (lookup.kind === 'not-found') return { known: partial, gap: `namespace ${goQuote(pod.namespace)} (POD_NAMESPACE) was not found` };
  return { known: partial, gap: `the labels of namespace ${goQuote(pod.namespace)} could not be read: ${lookup.error}` };
}

function selfOf(pod: DoctorPod, lookup: NamespaceLookup | undefined): Self {
  const ns = namespaceKnowledge(pod, lookup);
  const gaps = ns.gap === undefined ? [] : [ns.gap];
  if (pod.labels === undefined)
    gaps.push(`the doctor's own labels are unknown (reading ${pod.labelsFile} failed: ${pod.labelsError ?? 'unknown error'})`);
  return {
    pod,
    podLabels: pod.labels === undefined ? { labels: {}, complete: false } : { labels: pod.labels, complete: true },
    namespaceLabels: ns.known,
    gaps,
  };
}

function labelText(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined) return 'unknown labels';
  const pairs = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  return pairs.length === 0 ? 'no labels' : `labels ${pairs.join(',')}`;
}

interface ServerGroup {
  readonly pod: Pod;
  readonly count: number;
}

/** Server pods that the same policies treat the same way (same namespace, labels and named ports), once each. */
function groupServers(pods: readonly Pod[]): ServerGroup[] {
  const groups = new Map<string, { pod: Pod; count: number }>();
  for (const pod of pods) {
    const key = JSON.stringify([pod.namespace, Object.entries(pod.labels).sort(), pod.namedPorts ?? []]);
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { pod, count: 1 });
    else g.count++;
  }
  return [...groups.values()];
}

function judgeServer(
  emit: EmitFor<typeof CODES>,
  group: ServerGroup,
  policies: readonly NetworkPolicyRecord[],
  self: Self | undefined,
  trigger: string,
): Finding {
  const server = group.pod;
  const resource = `pod/${server.namespace}/${server.name}`;
  const others = group.count > 1 ? ` and ${group.count - 1} more server pod(s) labelled alike` : '';
  const target = `port ${CONTROLLER_FACING_PORT} of the server pod${others}`;
  const selecting = policies.filter(
    (p) =>
      p.namespace === server.namespace &&
      isolatesIngress(p) &&
      matchSelector(p.podSelector, { labels: server.labels, complete: true }).verdict === 'yes',
  );
  if (selecting.length === 0) {
    return emit(
      'NP003',
      resource,
      `${trigger}, but no NetworkPolicy isolates ingress to the server pod${others}, so none blocks :${CONTROLLER_FACING_PORT}; look at the server process, its Service and the network path instead`,
    );
  }
  const open: OpenRule[] = selecting.flatMap((policy) =>
    policy.ingress.flatMap((rule, index) => (ruleAdmitsPort(rule, server) ? [{ policy, index, rule }] : [])),
  );
  const closed = closedPolicies(selecting, open);
  const names = listSome(selecting, LISTED, policyName);
  if (open.length === 0) {
    return emit(
      'NP001',
      resource,
      `${trigger}: ${names} select${selecting.length === 1 ? 's' : ''} the server pod and admit${selecting.length === 1 ? 's' : ''} no traffic to ${target} from anyone: ${listSome(closed, LISTED, (p) => describeClosed(p, server), '; ')}`,
    );
  }
  const anySource = open.find((o) => o.rule.from.length === 0);
  if (anySource !== undefined) {
    return emit(
      'NP003',
      resource,
      `${trigger}, but ${policyName(anySource.policy)} (ingress rule ${anySource.index + 1}) admits ${target} from any source, so no NetworkPolicy blocks it; look at the server process, its Service and the network path instead`,
    );
  }
  const sources = listSome(admittedSources(open), LISTED, (source) => source, '; ');
  if (self === undefined) {
    return emit(
      'NP002',
      resource,
      `${trigger}, and the doctor runs outside the cluster (no POD_NAMESPACE), so it cannot be one of the sources the NetworkPolicies selecting the server pod admit to ${target}: ${sources}. Run the doctor as such a pod (the chart's Helm test does)`,
    );
  }
  const who = `the doctor's pod (namespace ${goQuote(self.pod.namespace)}, ${labelText(self.pod.labels)})`;
  const judged: JudgedPeer[] = open.flatMap(({ policy, index, rule }) =>
    rule.from.map((peer) => ({ policy, index, rule, peer, ...judgePeer(peer, policy.namespace, self) })),
  );
  const admitted = judged.find((j) => j.verdict === 'yes');
  if (admitted !== undefined) {
    return emit(
      'NP003',
      resource,
      `${trigger}, but ${policyName(admitted.policy)} (ingress rule ${admitted.index + 1}) admits ${who} to ${target}, so no NetworkPolicy blocks it; look at the server process, its Service and the network path instead`,
    );
  }
  const allReasons = listSome<JudgedPeer | NetworkPolicyRecord>(
    [...judged, ...closed],
    LISTED,
    (j) =>
      'peer' in j
        ? `${policyName(j.policy)} admits ${describePeer(j.peer, j.policy.namespace)}: ${j.lacks.join('; ')}`
        : describeClosed(j, server),
    ' | ',
  );
  if (judged.some((j) => j.verdict === 'unknown')) {
    return emit(
      'NP004',
      resource,
      `${trigger}; whether the NetworkPolicies selecting the server pod admit ${who} to ${target} could not be decided, because ${self.gaps.join(' and ')}: ${allReasons}`,
    );
  }
  return emit(
    'NP001',
    resource,
    `${trigger}: no NetworkPolicy selecting the server pod admits ${who} to ${target}: ${allReasons}. Run the doctor as a pod one of them admits (the chart's Helm test does)`,
  );
}

/** The :8081 probes that did not get an HTTP answer, with their errors. */
function unanswered(results: readonly (readonly [string, HttpResult | undefined])[]): { route: string; error: string }[] {
  return results.flatMap(([route, r]) => (r?.kind === 'transport-error' ? [{ route, error: r.error }] : []));
}

/** `GET /snapshot and HEAD /policy to http://h:8081 got no HTTP answer (first error)`. */
function describeTrigger(failed: readonly { route: string; error: string }[], base: string): string {
  const routes = failed.map((f) => f.route);
  const last = routes.at(-1) ?? '';
  const listed = routes.length === 1 ? last : `${routes.slice(0, -1).join(', ')} and ${last}`;
  return `${listed} to ${base} got no HTTP answer (${failed[0]?.error ?? 'no error recorded'})`;
}

/**
 * NetworkPolicyReachability: when a probe of the controller-facing :8081 listener got no HTTP answer
 * (refused, reset, timed out), says whether a NetworkPolicy is why. The server pods are the pods
 * labelled like the server (`app.kubernetes.io/name=inference-cache`,
 * `app.kubernetes.io/component=server`) among the pods read; the policies are those of the server
 * pod's namespace that select it and isolate ingress. As Kubernetes does, a pod selected by such a
 * policy admits only what one of them allows: a rule whose ports include 8081 (by number, range, or a
 * name resolved against the server pod's container ports) and whose `from` admits the source. In a pod
 * the doctor matches its own namespace (and that namespace's labels) and labels against each rule,
 * and names what it lacks; outside the cluster it lists the sources that are admitted.
 * The policies, pods and own namespace are read only when the server probes run.
 */
export const networkPolicyReachability = defineCheck({
  name: 'NetworkPolicyReachability',
  codes: CODES,
  reads: { networkPolicies: 'read', installPods: 'read', ownNamespace: 'optional' },
  probes: { routes: 'required' },
  judge({ state, probes, namespace, self }, emit) {
    const { routes } = probes;
    const failed = unanswered([
      ['GET /snapshot', routes.snapshot],
      ['HEAD /policy', routes.policy],
      ['HEAD /probe', routes.probe],
    ]);
    if (failed.length === 0) return [];
    const base = routes.base;
    const trigger = describeTrigger(failed, base);
    const { networkPolicies, installPods } = state;
    if (!installPods.ok)
      return [
        emit(
          'NP004',
          base,
          `${trigger}; whether a NetworkPolicy is the cause could not be judged: listing Pod objects failed: ${installPods.error}`,
        ),
      ];
    if (!networkPolicies.ok) {
      return [
        emit(
          'NP004',
          base,
          `${trigger}; whether a NetworkPolicy is the cause could not be judged: listing NetworkPolicy objects failed: ${networkPolicies.error}`,
        ),
      ];
    }
    const servers = installPods.items.flatMap(({ pod, role }) => (role === 'server' ? [pod] : []));
    if (servers.length === 0) {
      const scope = namespace === '' ? 'in any namespace' : `in namespace ${goQuote(namespace)} (--namespace)`;
      const labels = Object.entries(SERVER_POD_LABELS)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      return [
        emit(
          'NP004',
          base,
          `${trigger}; whether a NetworkPolicy is the cause could not be judged: no pod labelled ${labels} was found ${scope}`,
        ),
      ];
    }
    const me = self === undefined ? undefined : selfOf(self, state.ownNamespace);
    return groupServers(servers).map((g) => judgeServer(emit, g, networkPolicies.items, me, trigger));
  },
});
