/**
 * Every Kubernetes read the doctor performs, verb for verb. The chart's ClusterRole must grant exactly
 * these (a test compares the two); a read missing here is a bug in one of them.
 */
export interface DeclaredRead {
  /** API group; "" is the core group. */
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly verbs: readonly ('get' | 'list')[];
  /** Whether the resource lives in namespaces. */
  readonly namespaced: boolean;
  /**
   * Read only object by object, by name, and granted only for the names an operator lists (RBAC
   * `resourceNames`): without the grant the check says what it could not verify instead of failing.
   */
  readonly byNameOnly?: boolean;
}

export const READS = {
  cacheBackends: { group: 'inferencecache.io', version: 'v1alpha1', resource: 'cachebackends', verbs: ['list'], namespaced: true },
  pods: { group: '', version: 'v1', resource: 'pods', verbs: ['list'], namespaced: true },
  events: { group: '', version: 'v1', resource: 'events', verbs: ['list'], namespaced: true },
  cacheTenants: { group: 'inferencecache.io', version: 'v1alpha1', resource: 'cachetenants', verbs: ['list'], namespaced: true },
  cachePolicies: { group: 'inferencecache.io', version: 'v1alpha1', resource: 'cachepolicies', verbs: ['list'], namespaced: true },
  services: { group: '', version: 'v1', resource: 'services', verbs: ['get', 'list'], namespaced: true },
  namespaces: { group: '', version: 'v1', resource: 'namespaces', verbs: ['get'], namespaced: false },
  /** NodeFit: every node's readiness, cordon and allocatable. */
  nodes: { group: '', version: 'v1', resource: 'nodes', verbs: ['list'], namespaced: false },
  /** ImagePullability: the pull secrets a ServiceAccount adds to its pods. */
  serviceAccounts: { group: '', version: 'v1', resource: 'serviceaccounts', verbs: ['list'], namespaced: true },
  /**
   * ImagePullability: only the pull secrets the install names, each by name (a `get` per distinct
   * secret, never a `list`); the doctor keeps only each secret's type and shape. The chart grants it
   * only for the names in `rbac.pullSecretNames`; any other secret is reported as not verified.
   */
  secrets: { group: '', version: 'v1', resource: 'secrets', verbs: ['get'], namespaced: true, byNameOnly: true },
  /** NetworkPolicyReachability: the policies that may fence the server's :8081. */
  networkPolicies: { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', verbs: ['list'], namespaced: true },
} as const satisfies Record<string, DeclaredRead>;

/** The REST path of a collection, cluster-wide when `namespace` is empty. */
export function collectionPath(read: DeclaredRead, namespace: string): string {
  const base = read.group === '' ? `/api/${read.version}` : `/apis/${read.group}/${read.version}`;
  const scope = read.namespaced && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${scope}/${read.resource}`;
}
