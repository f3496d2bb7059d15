/**
 * The names an inference-cache install gives its pieces: the labels of its components, the prefix of
 * its annotations, the reasons of the Events its controller records.
 *
 * @module
 */

/** The label every component of an inference-cache install carries, and its value. */
export const INSTALL_NAME_LABEL = 'app.kubernetes.io/name';
export const INSTALL_NAME = 'inference-cache';
/** The label that tells the components apart (`server`, `controller`, …). */
export const COMPONENT_LABEL = 'app.kubernetes.io/component';
/**
 * The label and value the controller puts on the workloads it runs for a CacheBackend (a managed
 * Redis, NodeLocal LMCache servers); their pods are named after the backend, not the install.
 */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_CONTROLLER = 'inference-cache-controller';
/** The Lease the controller renews while it leads (upstream's `--leader-elect`, in its own namespace). */
export const CONTROLLER_LEADER_LEASE = 'inference-cache-controller-leader-lock';

/**
 * The prefix of the install's own annotations. A pod's other annotations (kubectl's last-applied
 * configuration can be kilobytes) are never kept: no check reads them.
 */
export const INSTALL_ANNOTATION_PREFIX = 'inferencecache.io/';
/** Annotations the pod webhook stamps on an engine pod it injected. */
export const INJECTED_BY = `${INSTALL_ANNOTATION_PREFIX}injected-by`;
export const INJECTED_BY_UID = `${INSTALL_ANNOTATION_PREFIX}injected-by-uid`;

/** Event reason the controller records once it validated a pod's injection annotations. */
export const INJECTED_EVENT_REASON = 'InjectedByCacheBackend';
/** Event reason for a pod that asked for the cache but matched no CacheBackend. */
export const NO_MATCH_EVENT_REASON = 'NoMatchingCacheBackend';

/** The labels of the cache-plane server's pods (upstream config/server). */
export const SERVER_POD_LABELS: Readonly<Record<string, string>> = { [INSTALL_NAME_LABEL]: INSTALL_NAME, [COMPONENT_LABEL]: 'server' };
