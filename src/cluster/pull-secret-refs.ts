import { isTerminated } from './install.ts';
import type { InstallPod, ServiceAccount } from './state.ts';

/** The ServiceAccount a pod runs as when its spec names none (the API server's default). */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

/** One pull secret the install relies on, and who names it (`pod/<ns>/<name>`, `serviceaccount/<ns>/<name>`). */
export interface PullSecretRef {
  readonly namespace: string;
  readonly name: string;
  readonly referrers: readonly string[];
}

/** The key of a secret in `ClusterState.pullSecrets`. */
export function secretKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * The pull secrets named by the install's live pods and by the ServiceAccounts those pods run as,
 * each once, in the order first named. Terminated pods are skipped: they pull nothing again.
 */
export function pullSecretRefs(installPods: readonly InstallPod[], serviceAccounts: readonly ServiceAccount[]): PullSecretRef[] {
  const accounts = new Map(serviceAccounts.map((sa) => [secretKey(sa.namespace, sa.name), sa]));
  const refs = new Map<string, { namespace: string; name: string; referrers: Set<string> }>();
  const add = (namespace: string, name: string, referrer: string) => {
    const key = secretKey(namespace, name);
    const ref = refs.get(key) ?? { namespace, name, referrers: new Set() };
    ref.referrers.add(referrer);
    refs.set(key, ref);
  };
  for (const { pod } of installPods) {
    if (isTerminated(pod)) continue;
    for (const name of pod.imagePullSecrets ?? []) add(pod.namespace, name, `pod/${pod.namespace}/${pod.name}`);
    const sa = accounts.get(secretKey(pod.namespace, pod.serviceAccountName ?? DEFAULT_SERVICE_ACCOUNT));
    for (const name of sa?.imagePullSecrets ?? []) add(pod.namespace, name, `serviceaccount/${pod.namespace}/${sa?.name ?? ''}`);
  }
  return [...refs.values()].map((ref) => ({ ...ref, referrers: [...ref.referrers] }));
}
