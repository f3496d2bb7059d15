import type { IngressRule, LabelSelector, NetworkPolicyRecord, PolicyPeer, PolicyPort, SelectorRequirement } from './state.ts';
import { arr, obj, objectRef, str, stringMap } from './wire.ts';

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
