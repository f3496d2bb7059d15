import { arr, obj, objectRef, str, stringMap } from '../encoding/wire.ts';
import { defineKind, type ObjectRef } from './kind.ts';
import type { LabelSelector, SelectorRequirement } from './label-selector.ts';

/** A `NetworkPolicyPeer`: whichever of its fields the object sets. */
export interface PolicyPeer {
  readonly podSelector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly ipBlock?: { readonly cidr: string; readonly except: readonly string[] };
}

/** A `NetworkPolicyPort`: a number or a name, or absent for every port of the protocol. */
export interface PolicyPort {
  /** `TCP` when the spec leaves it out. */
  readonly protocol: string;
  readonly port?: number | string;
  readonly endPort?: number;
}

/** One ingress rule; an empty `from` admits every source, empty `ports` every port. */
export interface IngressRule {
  readonly from: readonly PolicyPeer[];
  readonly ports: readonly PolicyPort[];
}

/** A networking.k8s.io/v1 NetworkPolicy, reduced to its ingress side. */
export interface NetworkPolicyRecord extends ObjectRef {
  readonly podSelector: LabelSelector;
  /** `spec.policyTypes` as written; absent means Ingress is implied. */
  readonly policyTypes?: readonly string[];
  readonly ingress: readonly IngressRule[];
}

function selectorOf(raw: unknown): LabelSelector {
  const o = obj(raw);
  const matchExpressions: SelectorRequirement[] = arr(o?.['matchExpressions']).map((e) => {
    const x = obj(e);
    return {
      key: str(x?.['key']),
      operator: str(x?.['operator']),
      values: arr(x?.['values']).filter((v): v is string => typeof v === 'string'),
    };
  });
  return { matchLabels: stringMap(o?.['matchLabels']), matchExpressions };
}

function peerOf(raw: unknown): PolicyPeer {
  const p = obj(raw);
  const ipBlock = obj(p?.['ipBlock']);
  return {
    ...(obj(p?.['podSelector']) === undefined ? {} : { podSelector: selectorOf(p?.['podSelector']) }),
    ...(obj(p?.['namespaceSelector']) === undefined ? {} : { namespaceSelector: selectorOf(p?.['namespaceSelector']) }),
    ...(ipBlock === undefined
      ? {}
      : { ipBlock: { cidr: str(ipBlock['cidr']), except: arr(ipBlock['except']).filter((v): v is string => typeof v === 'string') } }),
  };
}

function portOf(raw: unknown): PolicyPort {
  const p = obj(raw);
  const port = p?.['port'];
  const endPort = p?.['endPort'];
  return {
    protocol: str(p?.['protocol']) || 'TCP',
    ...(typeof port === 'number' || (typeof port === 'string' && port !== '') ? { port } : {}),
    ...(typeof endPort === 'number' ? { endPort } : {}),
  };
}

function ruleOf(raw: unknown): IngressRule {
  const r = obj(raw);
  return { from: arr(r?.['from']).map(peerOf), ports: arr(r?.['ports']).map(portOf) };
}

/** Projects a networking.k8s.io/v1 NetworkPolicy to its pod selector, policy types and ingress rules. */
export function projectNetworkPolicy(raw: unknown): NetworkPolicyRecord {
  const spec = obj(obj(raw)?.['spec']);
  const types = spec?.['policyTypes'];
  return {
    ...objectRef(raw),
    podSelector: selectorOf(spec?.['podSelector']),
    ...(Array.isArray(types) ? { policyTypes: types.filter((t): t is string => typeof t === 'string') } : {}),
    ingress: arr(spec?.['ingress']).map(ruleOf),
  };
}

/** The NetworkPolicies, for whether the server's ports admit the doctor and the controller. */
export const NETWORK_POLICY_KIND = defineKind({
  kind: 'NetworkPolicy',
  access: { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', verbs: ['list'], namespaced: true },
  reads: 'list',
  project: projectNetworkPolicy,
  dump: { write: 'whole' },
});
