// The parts of a rendered doctor pod the chart tests look at, pulled out of the manifest once so each
// case can state what it expects as a plain object.
import type { KubeObject } from '../../../dev/cluster/manifests.ts';

/** The slice of a Pod spec the chart renders. */
export interface PodSpec {
  restartPolicy?: string;
  activeDeadlineSeconds?: number;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  readinessGates?: { conditionType: string }[];
  dnsConfig?: { options?: { name: string; value?: string }[] };
  securityContext?: Record<string, unknown>;
  imagePullSecrets?: { name: string }[];
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  affinity?: unknown;
  containers: {
    name: string;
    image: string;
    args?: string[];
    env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
    securityContext?: Record<string, unknown>;
    resources?: Record<string, Record<string, string | number>>;
    terminationMessagePath?: string;
    terminationMessagePolicy?: string;
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  }[];
  volumes?: {
    name: string;
    projected?: { sources: { serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string } }[] };
    downwardAPI?: { items: { path: string; fieldRef?: { fieldPath: string } }[] };
  }[];
}

/** A rendered Pod with its spec typed. */
export type PodObject = KubeObject & { spec: PodSpec; metadata: { annotations?: Record<string, string> } };

/** What one render says about the doctor pod, flattened. */
export interface PodFacts {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Record<string, string>;
  readonly serviceAccount: string | undefined;
  readonly annotations: Record<string, string>;
  readonly args: readonly string[];
  readonly image: string;
  readonly activeDeadlineSeconds: number | undefined;
  /** The value after `flag` in the args, if the flag is there. */
  readonly flag: (flag: string) => string | undefined;
  /** The file the projected ServiceAccount token lands in, from the volume and its mount. */
  readonly tokenFile: string | undefined;
  readonly tokenAudience: string | undefined;
  readonly tokenExpirationSeconds: number | undefined;
}

/** Extracts the facts; throws when the pod has no single container. */
export function podFacts(pod: PodObject): PodFacts {
  const [container, ...others] = pod.spec.containers;
  if (container === undefined || others.length > 0) throw new Error('the doctor pod must have exactly one container');
  const args = container.args ?? [];
  const tokenVolume = pod.spec.volumes?.find((v) => v.projected?.sources.some((s) => s.serviceAccountToken !== undefined));
  const token = tokenVolume?.projected?.sources.find((s) => s.serviceAccountToken !== undefined)?.serviceAccountToken;
  const mount = container.volumeMounts?.find((m) => m.name === tokenVolume?.name);
  return {
    name: pod.metadata.name,
    namespace: pod.metadata.namespace,
    labels: pod.metadata.labels ?? {},
    serviceAccount: pod.spec.serviceAccountName,
    annotations: pod.metadata.annotations ?? {},
    args,
    image: container.image,
    activeDeadlineSeconds: pod.spec.activeDeadlineSeconds,
    flag: (flag) => {
      const i = args.indexOf(flag);
      return i < 0 ? undefined : args[i + 1];
    },
    tokenFile: mount === undefined || token === undefined ? undefined : `${mount.mountPath}/${token.path}`,
    tokenAudience: token?.audience,
    tokenExpirationSeconds: token?.expirationSeconds,
  };
}
