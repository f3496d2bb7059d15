/**
 * How the doctor addresses a Kind on the API server: its group, version and resource, the verbs it
 * uses, and the REST paths made from them. Every name that enters a path is checked first, so that no
 * value from the cluster or the command line can change which URL is read.
 *
 * @module
 */

/**
 * One Kubernetes API access, verb for verb. The chart's ClusterRole grants exactly the accesses of the
 * reads the checks declare (a test compares the two in both directions); an access missing here is a
 * bug in one of them.
 */
export interface ApiAccess {
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

/** The `apiVersion` of an access's objects: `v1` in the core group, `<group>/<version>` elsewhere. */
export function apiVersionOf(access: Pick<ApiAccess, 'group' | 'version'>): string {
  return access.group === '' ? access.version : `${access.group}/${access.version}`;
}

const DNS_1123_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/** Whether `name` can name a namespace (a DNS-1123 label). */
export function isNamespaceName(name: string): boolean {
  return DNS_1123_LABEL.test(name);
}

/**
 * Whether `name` can name an object such as a Secret (a DNS-1123 subdomain). A name from the cluster
 * that cannot is never put into a URL: `..` or `a/b` would change which URL is read.
 */
export function isObjectName(name: string): boolean {
  return DNS_1123_SUBDOMAIN.test(name);
}

/**
 * The REST path of a collection, cluster-wide when `namespace` is empty.
 *
 * @throws RangeError for a namespace that is not a namespace name (the CLI refuses those first).
 */
export function collectionPath(access: ApiAccess, namespace: string): string {
  if (namespace !== '' && !isNamespaceName(namespace)) throw new RangeError(`${JSON.stringify(namespace)} is not a namespace name`);
  const base = access.group === '' ? `/api/${access.version}` : `/apis/${access.group}/${access.version}`;
  const scope = access.namespaced && namespace !== '' ? `/namespaces/${namespace}` : '';
  return `${base}${scope}/${access.resource}`;
}

/**
 * The REST path of one object.
 *
 * @throws RangeError for a name that cannot be an object's (check with {@link isObjectName} first).
 */
export function objectPath(access: ApiAccess, namespace: string, name: string): string {
  if (!isObjectName(name)) throw new RangeError(`${JSON.stringify(name)} is not an object name`);
  return `${collectionPath(access, namespace)}/${name}`;
}

/** The API group and version of the inference-cache custom resources. */
export const CACHE_GROUP = { group: 'inferencecache.io', version: 'v1alpha1' } as const;
/** The core group. */
export const CORE = { group: '', version: 'v1' } as const;
