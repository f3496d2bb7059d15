/**
 * The slice of the core/v1 wire format the kubelet stand-in reads and writes, with the JSON field
 * names the API server uses. The stand-in talks plain JSON (not client-node's typed models, whose
 * camelCase attributes and `Date` values differ from the wire), so these describe exactly what goes
 * over the connection.
 *
 * @module
 */

/** Object metadata as the stand-in needs it. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
}

/** A reference to one key of a ConfigMap or Secret. */
export interface KeySelector {
  name: string;
  key: string;
  optional?: boolean;
}

/** Where an environment variable's value comes from. */
export interface EnvVarSource {
  fieldRef?: { fieldPath: string; apiVersion?: string };
  resourceFieldRef?: { resource: string; containerName?: string };
  configMapKeyRef?: KeySelector;
  secretKeyRef?: KeySelector;
  [other: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

export interface SecurityContext {
  runAsUser?: number;
  runAsNonRoot?: boolean;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  volumeMounts?: VolumeMount[];
  terminationMessagePath?: string;
  terminationMessagePolicy?: 'File' | 'FallbackToLogsOnError';
  readinessProbe?: unknown;
  startupProbe?: unknown;
  /** `Always` marks a sidecar init container. */
  restartPolicy?: string;
  securityContext?: SecurityContext;
}

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: { fieldPath: string };
  resourceFieldRef?: unknown;
  mode?: number;
}

export interface ServiceAccountTokenProjection {
  audience?: string;
  expirationSeconds?: number;
  path: string;
}

export interface ConfigMapProjection {
  name: string;
  items?: KeyToPath[];
  optional?: boolean;
}

export interface SecretProjection {
  name: string;
  items?: KeyToPath[];
  optional?: boolean;
}

export interface VolumeProjection {
  serviceAccountToken?: ServiceAccountTokenProjection;
  configMap?: ConfigMapProjection;
  secret?: SecretProjection;
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  [other: string]: unknown;
}

/** A pod volume; exactly one source field besides `name` is set. */
export interface Volume {
  name: string;
  emptyDir?: Record<string, unknown>;
  configMap?: ConfigMapProjection & { defaultMode?: number };
  secret?: { secretName: string; items?: KeyToPath[]; optional?: boolean; defaultMode?: number };
  downwardAPI?: { items?: DownwardAPIVolumeFile[]; defaultMode?: number };
  projected?: { sources?: VolumeProjection[]; defaultMode?: number };
  [other: string]: unknown;
}

export interface PodSpec {
  nodeName?: string;
  schedulerName?: string;
  schedulingGates?: { name: string }[];
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  activeDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
  readinessGates?: { conditionType: string }[];
  initContainers?: Container[];
  containers: Container[];
  volumes?: Volume[];
  dnsPolicy?: string;
  dnsConfig?: { searches?: string[]; options?: { name: string; value?: string }[] };
  securityContext?: SecurityContext;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
  observedGeneration?: number;
}

export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt: string };
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: ContainerState;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  reason?: string;
  message?: string;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}

/** A ConfigMap or Secret as far as volumes and env need them. */
export interface DataObject {
  metadata: ObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** `namespace/name` of a pod, the key users and the log endpoint know it by. */
export function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** RFC 3339 at second precision, as metav1.Time is written. */
export function nowRfc3339(at = Date.now()): string {
  return new Date(Math.floor(at / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
