// A small NetworkPolicy ingress evaluator (networking.k8s.io/v1 semantics), written for the tests as an
// independent oracle: would a CNI that enforces NetworkPolicy let `source` open a connection to `port` of
// `target`? It covers podSelector and namespaceSelector (matchLabels and matchExpressions), ipBlock for
// IPv4, ports by number, range (endPort) or container-port name, protocols, and policyTypes.

/** A label selector as written in a manifest. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

export interface NetworkPolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface NetworkPolicyPort {
  protocol?: Protocol;
  port?: number | string;
  endPort?: number;
}

/** The parts of a NetworkPolicy that decide ingress. */
export interface NetworkPolicy {
  metadata: { name: string; namespace?: string };
  spec: {
    podSelector: LabelSelector;
    policyTypes?: ('Ingress' | 'Egress')[];
    ingress?: { from?: NetworkPolicyPeer[]; ports?: NetworkPolicyPort[] }[];
    egress?: unknown[];
  };
}

/** A pod as the evaluator sees it. */
export interface PodEndpoint {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The pod's IP, for ipBlock peers; without it no ipBlock matches. */
  readonly ip?: string;
  /** The target's container ports, for ports given by name. */
  readonly ports?: readonly { name?: string; containerPort: number; protocol?: Protocol }[];
}

/** The verdict, with the policies that decided it. */
export interface IngressVerdict {
  readonly allowed: boolean;
  /** Whether any policy isolates the target for ingress (if not, everything is allowed). */
  readonly isolated: boolean;
  /** Names of the policies that select the target for ingress. */
  readonly selecting: readonly string[];
  /** Names of those whose rules admit this connection. */
  readonly admittedBy: readonly string[];
}

/** Whether `labels` satisfy `selector`; an empty selector selects everything. */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const expr of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, expr.key);
    const value = labels[expr.key];
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
        if (!has || !values.includes(value as string)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        throw new Error(`unknown selector operator ${String((expr as { operator: unknown }).operator)}`);
    }
  }
  return true;
}

function ipv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** Whether an IPv4 address lies in an IPv4 CIDR (other address families never match). */
export function inCidr(ip: string, cidr: string): boolean {
  const [base = '', bitsText = '32'] = cidr.split('/');
  const addr = ipv4(ip);
  const net = ipv4(base);
  const bits = Number(bitsText);
  if (addr === undefined || net === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const size = 2 ** (32 - bits);
  return Math.floor(addr / size) === Math.floor(net / size);
}

/** Labels of a namespace as the API server keeps them (with the automatic name label). */
export type NamespaceLabels = (namespace: string) => Readonly<Record<string, string>>;

function peerMatches(peer: NetworkPolicyPeer, policyNamespace: string, source: PodEndpoint, namespaceLabels: NamespaceLabels): boolean {
  if (peer.ipBlock !== undefined) {
    const ip = source.ip;
    return ip !== undefined && inCidr(ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => inCidr(ip, c));
  }
  if (peer.podSelector === undefined && peer.namespaceSelector === undefined) return false;
  const nsOk =
    peer.namespaceSelector === undefined
      ? source.namespace === policyNamespace
      : selectorMatches(peer.namespaceSelector, { ...namespaceLabels(source.namespace), 'kubernetes.io/metadata.name': source.namespace });
  const podOk = peer.podSelector === undefined || selectorMatches(peer.podSelector, source.labels);
  return nsOk && podOk;
}

function portMatches(rulePort: NetworkPolicyPort, target: PodEndpoint, port: number, protocol: Protocol): boolean {
  if ((rulePort.protocol ?? 'TCP') !== protocol) return false;
  if (rulePort.port === undefined) return true;
  if (typeof rulePort.port === 'string') {
    return (target.ports ?? []).some((p) => p.name === rulePort.port && p.containerPort === port && (p.protocol ?? 'TCP') === protocol);
  }
  return rulePort.endPort === undefined ? rulePort.port === port : port >= rulePort.port && port <= rulePort.endPort;
}

function appliesToIngress(policy: NetworkPolicy): boolean {
  return policy.spec.policyTypes === undefined ? true : policy.spec.policyTypes.includes('Ingress');
}

/**
 * Whether `source` may connect to `port`/`protocol` on `target` under `policies` (those of every
 * namespace; only the target's namespace's matter). `namespaceLabels` gives each namespace's labels.
 */
export function evaluateIngress(
  policies: readonly NetworkPolicy[],
  target: PodEndpoint,
  source: PodEndpoint,
  port: number,
  opts: { protocol?: Protocol; namespaceLabels?: NamespaceLabels } = {},
): IngressVerdict {
  const protocol = opts.protocol ?? 'TCP';
  const namespaceLabels = opts.namespaceLabels ?? (() => ({}));
  const selecting = policies.filter(
    (p) =>
      (p.metadata.namespace ?? 'default') === target.namespace && appliesToIngress(p) && selectorMatches(p.spec.podSelector, target.labels),
  );
  if (selecting.length === 0) return { allowed: true, isolated: false, selecting: [], admittedBy: [] };
  const admittedBy = selecting.filter((policy) =>
    (policy.spec.ingress ?? []).some((rule) => {
      const fromOk =
        rule.from === undefined ||
        rule.from.length === 0 ||
        rule.from.some((peer) => peerMatches(peer, target.namespace, source, namespaceLabels));
      const portOk = rule.ports === undefined || rule.ports.length === 0 || rule.ports.some((p) => portMatches(p, target, port, protocol));
      return fromOk && portOk;
    }),
  );
  return {
    allowed: admittedBy.length > 0,
    isolated: true,
    selecting: selecting.map((p) => p.metadata.name),
    admittedBy: admittedBy.map((p) => p.metadata.name),
  };
}
