/**
 * What a check reads and probes, in words, derived from its declaration: `inferencecache explain` and
 * docs/codes.md tell an operator what a finding was judged from. The verb, the Kind and the scope of
 * each read come from the catalogue of reads (`cluster/state/reads.ts`); this file adds only what the
 * catalogue cannot say, once per read and once per probe (which objects a view keeps, what a probe
 * sends), so that a new read or probe does not compile until it is described here.
 *
 * @module
 */

import type { ApiAccess } from '../cluster/kinds/access.ts';
import { READS, type ReadSpec } from '../cluster/state/reads.ts';
import type { ReadName } from '../cluster/state/state.ts';
import type { CheckReads } from '../report/code-table.ts';
import type { Declaration, ProbeMode, ProbeName, ReadMode } from './check.ts';

/**
 * Which objects each read keeps, after its Kind and scope: empty for a read that keeps every object
 * of its Kind in scope. For a read of one object (`get` only, not by name of a list), the words that
 * name the object after "gets the <Kind>".
 */
const KEEPS = {
  cacheBackends: '',
  pods: "every pod but the doctor's own",
  installPods: "the install's pods (server, controller, the workloads the controller runs) and the engine pods a CacheBackend selects",
  selectedPods: 'the engine pods a CacheBackend of their namespace selects',
  pendingPodRequests: 'the resource requests of the pods waiting for a node',
  events: '',
  injectionEvents: 'the InjectedByCacheBackend Events about pods',
  noMatchEvents: 'the NoMatchingCacheBackend Events about pods',
  cacheTenants: '',
  cachePolicies: '',
  nodes: 'their readiness, cordon and allocatable resources',
  serviceAccounts: 'the image pull secrets they name',
  networkPolicies: '',
  pullSecrets: "the image pull secrets the install's pods and their ServiceAccounts name, keeping only their type and shape",
  scopeNamespace: 'that -n names',
  ownNamespace: 'the doctor runs in (POD_NAMESPACE), for its labels',
  namespaces: 'those with a suppression annotation, or under -n only that namespace',
  leases: "the controller's leader Lease",
} as const satisfies { readonly [K in ReadName]: string };

/** What a read's mode adds: nothing for a read the check needs, a note for one it can do without. */
const READ_MODE_NOTE: Readonly<Record<ReadMode, string>> = {
  items: '',
  read: '',
  optional: ' (optional: without it the check loses only context)',
  partial: ' (optional: without it the check leaves part of its findings undecided)',
};

/** What each probe does, verb first. */
const PROBES: Readonly<Record<ProbeName, string>> = {
  server:
    'calls the gRPC health service of the cache-plane server on its gRPC port (9090, or the port --server-endpoint names), in plaintext or over TLS as --server-tls and what the port speaks decide',
  routes:
    "sends GET /snapshot with the bearer token, then HEAD /policy and HEAD /probe without one, to the server's controller-facing listener on :8081 (in a monitor, only with --probe-controller-listener)",
  dials: "dials each CacheBackend's published remote endpoint over TCP",
};

/** What a probe's mode adds: whether the check runs at all without it. */
const PROBE_MODE_NOTE: Readonly<Record<ProbeMode, string>> = {
  required: ', except under --config-only, when the check does not run',
  optional: ', except under --config-only, when the check judges without it',
};

/** `CacheBackends`, `CachePolicies`. */
function plural(kind: string): string {
  return kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`;
}

/** Where a list reads: every namespace (or the `-n` one) for a namespaced Kind, else the whole cluster. */
function listScope(access: ApiAccess): string {
  return access.namespaced ? 'all namespaces, or -n' : 'cluster-wide';
}

/** One read in words: the verb and the Kind from the catalogue, then which objects it keeps. */
function readPhrase(name: ReadName, spec: ReadSpec, mode: ReadMode): string {
  const keeps: string = KEEPS[name];
  const { access } = spec;
  let phrase: string;
  if (access.byNameOnly === true) phrase = `gets ${plural(spec.kind)} one by one, by name${keeps === '' ? '' : `: ${keeps}`}`;
  else if (!access.verbs.includes('list')) phrase = `gets the ${spec.kind}${keeps === '' ? '' : ` ${keeps}`}`;
  else phrase = `lists ${plural(spec.kind)} (${listScope(access)})${keeps === '' ? '' : `: ${keeps}`}`;
  return `${phrase}${READ_MODE_NOTE[mode]}`;
}

/**
 * How the server probes find the server: the Service discovery (`SERVER_DISCOVERY` in
 * `cluster/state/reads.ts`, done by `cluster/gather/discovery.ts`), an API access that no check
 * declares as a read but that every run probing the server takes; `-n` does not narrow it.
 */
const DISCOVERY =
  'gets the Service inference-cache-server in inference-cache-system and, when it is not there, lists Services in every namespace for it, whatever -n says (not with --server-endpoint, nor under --config-only)';

/**
 * What `declaration` reads and probes, in words: its reads in the order it declares them, the Service
 * discovery when it probes the server, then its probes.
 */
export function checkReads(declaration: Pick<Declaration, 'name' | 'reads' | 'probes'>): CheckReads {
  const reads = (Object.entries(declaration.reads) as [ReadName, ReadMode][]).map(([name, mode]) => readPhrase(name, READS[name], mode));
  const probes = Object.entries(declaration.probes) as [ProbeName, ProbeMode][];
  const findsServer = probes.some(([name]) => name === 'server' || name === 'routes');
  return {
    check: declaration.name,
    kubernetes: [...reads, ...(findsServer ? [DISCOVERY] : [])],
    probes: probes.map(([name, mode]) => `${PROBES[name]}${PROBE_MODE_NOTE[mode]}`),
  };
}
