import type { InstallPod } from './state.ts';
import type { ServiceAccount } from '../kinds/service-account.ts';
import { isTerminated } from '../kinds/pod.ts';

/** The ServiceAccount a pod runs as when its spec names none (the API server's default). */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

/**
 * How many distinct image pull secrets of one pod, and of one ServiceAccount, are read and judged.
 * A pod or ServiceAccount names one or two in practice; without a bound, one object naming ten
 * thousand would cost ten thousand secret reads and give ten thousand findings. The names beyond it
 * are counted instead ({@link PullSecretOverflow}).
 */
export const MAX_PULL_SECRETS_PER_OBJECT = 16;

/** One pull secret the install relies on, and who names it (`pod/<ns>/<name>`, `serviceaccount/<ns>/<name>`). */
export interface PullSecretRef {
  readonly namespace: string;
  readonly name: string;
  readonly referrers: readonly string[];
}

/**
 * A pod or ServiceAccount that names more than {@link MAX_PULL_SECRETS_PER_OBJECT} pull secrets: how
 * many it names, and those of its names beyond the bound that no object had within its own bound,
 * so that they were not read at all.
 */
export interface PullSecretOverflow {
  /** `pod/<ns>/<name>` or `serviceaccount/<ns>/<name>`. */
  readonly referrer: string;
  /** The distinct names it lists. */
  readonly named: number;
  /** Its names that were not read, in the order it lists them. */
  readonly unread: readonly string[];
}

/** The pull secrets to read and judge, and the objects that name more than that. */
export interface PullSecretPlan {
  readonly refs: readonly PullSecretRef[];
  readonly overflows: readonly PullSecretOverflow[];
}

/** The key of a secret in `ClusterState.pullSecrets`. */
export function secretKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * The pull secrets named by the install's live pods and by the ServiceAccounts those pods run as,
 * each once, in the order first named, at most {@link MAX_PULL_SECRETS_PER_OBJECT} from any one pod
 * or ServiceAccount; and the objects that name more. Terminated pods are skipped: they pull nothing
 * again.
 */
export function pullSecretPlan(installPods: readonly InstallPod[], serviceAccounts: readonly ServiceAccount[]): PullSecretPlan {
  const accounts = new Map(serviceAccounts.map((sa) => [secretKey(sa.namespace, sa.name), sa]));
  const refs = new Map<string, { namespace: string; name: string; referrers: Set<string> }>();
  const beyond = new Map<string, { namespace: string; named: number; names: readonly string[] }>();
  const seen = new Set<string>();
  // A ServiceAccount is met once per pod that runs as it; its names are taken the first time.
  const add = (namespace: string, names: readonly string[], referrer: string) => {
    if (seen.has(referrer)) return;
    seen.add(referrer);
    const distinct = [...new Set(names)];
    for (const name of distinct.slice(0, MAX_PULL_SECRETS_PER_OBJECT)) {
      const key = secretKey(namespace, name);
      const ref = refs.get(key) ?? { namespace, name, referrers: new Set() };
      ref.referrers.add(referrer);
      refs.set(key, ref);
    }
    if (distinct.length > MAX_PULL_SECRETS_PER_OBJECT) {
      beyond.set(referrer, { namespace, named: distinct.length, names: distinct.slice(MAX_PULL_SECRETS_PER_OBJECT) });
    }
  };
  // An object that names no pull secret adds nothing: most engine pods, and the ServiceAccounts they
  // run as, so a large cluster's pods cost a lookup each and no more.
  for (const { pod } of installPods) {
    if (isTerminated(pod)) continue;
    if (pod.imagePullSecrets !== undefined && pod.imagePullSecrets.length > 0)
      add(pod.namespace, pod.imagePullSecrets, `pod/${pod.namespace}/${pod.name}`);
    const sa = accounts.get(secretKey(pod.namespace, pod.serviceAccountName ?? DEFAULT_SERVICE_ACCOUNT));
    if (sa !== undefined && sa.imagePullSecrets.length > 0)
      add(pod.namespace, sa.imagePullSecrets, `serviceaccount/${pod.namespace}/${sa.name}`);
  }
  // A name beyond one object's bound that another object names within its own is read all the same.
  const overflows = [...beyond].flatMap(([referrer, { namespace, named, names }]) => {
    const unread = names.filter((name) => !refs.has(secretKey(namespace, name)));
    return unread.length === 0 ? [] : [{ referrer, named, unread }];
  });
  return { refs: [...refs.values()].map((ref) => ({ ...ref, referrers: [...ref.referrers] })), overflows };
}

/** The pull secrets to read and judge: {@link pullSecretPlan}'s refs. */
export function pullSecretRefs(installPods: readonly InstallPod[], serviceAccounts: readonly ServiceAccount[]): PullSecretRef[] {
  return [...pullSecretPlan(installPods, serviceAccounts).refs];
}
