import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describeError } from '../text/errors.ts';
import { KubeConfigError } from './kubeconfig-error.ts';

export { KubeConfigError } from './kubeconfig-error.ts';

/** The environment the loader looks at, passed in so that nothing reads `process` here. */
export interface KubeEnv {
  readonly KUBECONFIG?: string | undefined;
  readonly HOME?: string | undefined;
  readonly KUBERNETES_SERVICE_HOST?: string | undefined;
  readonly KUBERNETES_SERVICE_PORT?: string | undefined;
}

function loadFiles(kc: KubeConfig, files: readonly string[]): void {
  for (const [i, file] of files.entries()) {
    try {
      if (i === 0) {
        kc.loadFromFile(file);
      } else {
        const more = new KubeConfig();
        more.loadFromFile(file);
        kc.mergeConfig(more);
      }
    } catch (err) {
      throw new KubeConfigError(`cannot load kubeconfig ${JSON.stringify(file)}: ${describeError(err)}`);
    }
  }
}

function homeConfig(env: KubeEnv): string | undefined {
  const home = env.HOME ?? safeHomedir();
  if (home === undefined || home === '') return undefined;
  const file = join(home, '.kube', 'config');
  return existsSync(file) ? file : undefined;
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

/**
 * The in-cluster configuration: the API address from the Service environment variables, the
 * ServiceAccount token (re-read as the kubelet rotates it) and the cluster CA.
 */
function loadInCluster(kc: KubeConfig, env: KubeEnv, serviceAccountDir: string): void {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  kc.loadFromClusterAndUser(
    {
      name: 'in-cluster',
      server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
      caFile: join(serviceAccountDir, 'ca.crt'),
      skipTLSVerify: false,
    },
    { name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile: join(serviceAccountDir, 'token') } } },
  );
}

/**
 * Loads the kubeconfig the way kubectl does: `--kubeconfig`, else `$KUBECONFIG` (merged), else
 * `~/.kube/config`; the in-cluster ServiceAccount (token and CA in `serviceAccountDir`, the pod's
 * `/var/run/secrets/kubernetes.io/serviceaccount`) is the fallback only when neither `--kubeconfig` nor
 * `--context` was given. An unknown `--context` is an error, not a silent default.
 */
export function loadKubeConfig(flags: { kubeconfig: string; context: string }, env: KubeEnv, serviceAccountDir: string): KubeConfig {
  const kc = new KubeConfig();
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (flags.kubeconfig !== '') {
    loadFiles(kc, [flags.kubeconfig]);
  } else if (fromEnv.length > 0) {
    loadFiles(kc, fromEnv);
  } else {
    const home = homeConfig(env);
    if (home !== undefined) {
      loadFiles(kc, [home]);
    } else if (flags.context === '' && (env.KUBERNETES_SERVICE_HOST ?? '') !== '') {
      const token = join(serviceAccountDir, 'token');
      if (!existsSync(token)) throw new KubeConfigError(`running in a pod but no ServiceAccount token is mounted at ${token}`);
      loadInCluster(kc, env, serviceAccountDir);
    } else {
      throw new KubeConfigError('no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config');
    }
  }
  if (flags.context !== '') {
    if (kc.getContextObject(flags.context) === null) {
      throw new KubeConfigError(`context ${JSON.stringify(flags.context)} is not in the kubeconfig`);
    }
    kc.setCurrentContext(flags.context);
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null || cluster.server === '') {
    const ctx = kc.getCurrentContext() as string | null;
    throw new KubeConfigError(
      ctx === null || ctx === ''
        ? 'the kubeconfig sets no current context; pass --context'
        : `context ${JSON.stringify(ctx)} names no usable cluster`,
    );
  }
  return kc;
}
