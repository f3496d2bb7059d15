/**
 * Argo CD Applications as the suites on the real node drive them: the doctor's chart from the Helm
 * repository Argo CD is given (node/argocd.ts), synced automatically, and read back the way `argocd app
 * get` shows an Application (docs/real-node.md, "Argo CD").
 *
 * @module
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { ARGOCD_NAMESPACE, CHART_NAME, type ArgoCd } from '../../dev/cluster/node/argocd.ts';
import { INSTALL_NAMESPACE } from '../../dev/cluster/manifests.ts';
import { pollUntil } from '../../dev/poll.ts';

export const APPLICATIONS = { group: 'argoproj.io', version: 'v1alpha1', plural: 'applications' } as const;

/** The parts of an Application's status the tests read (`argocd app get` shows the same). */
export interface ApplicationStatus {
  readonly operationState?: OperationState;
}

/** The last sync operation of an Application. */
export interface OperationState {
  readonly phase?: string;
  readonly message?: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly syncResult?: {
    readonly revision?: string;
    readonly resources?: readonly {
      readonly kind: string;
      readonly name: string;
      readonly hookType?: string;
      readonly hookPhase?: string;
      readonly message?: string;
    }[];
  };
}

/** The Applications of one cluster's Argo CD. */
export function applications(kc: KubeConfig, argocd: ArgoCd | undefined) {
  const custom = () => kc.makeApiClient(CustomObjectsApi);
  /** Creates the Application `name`: the chart from the Helm repository into the install's namespace, automated sync. */
  const create = async (name: string, values: Record<string, unknown>, revision?: string): Promise<void> => {
    if (argocd === undefined) throw new Error('no Argo CD');
    await custom().createNamespacedCustomObject({
      ...APPLICATIONS,
      namespace: ARGOCD_NAMESPACE,
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name, namespace: ARGOCD_NAMESPACE },
        spec: {
          project: 'default',
          source: {
            repoURL: argocd.helmRepoUrl,
            chart: CHART_NAME,
            targetRevision: revision ?? argocd.chartVersion,
            helm: { releaseName: name, valuesObject: values },
          },
          destination: { server: 'https://kubernetes.default.svc', namespace: INSTALL_NAMESPACE },
          // Without `retry`, v3.6.2 retries a failed automated sync 5 times (controller/appcontroller.go),
          // each running the hook again; the chart README tells operators to set this.
          syncPolicy: { automated: {}, retry: { limit: 0 } },
        },
      },
    });
  };
  const status = async (name: string): Promise<ApplicationStatus> =>
    ((await custom().getNamespacedCustomObject({ ...APPLICATIONS, namespace: ARGOCD_NAMESPACE, name })) as { status?: ApplicationStatus })
      .status ?? {};
  /** Waits until the Application's operation has ended (after `since`, when given); returns its state. */
  const operationEnded = async (name: string, since?: string): Promise<OperationState> => {
    let state: OperationState | undefined;
    await pollUntil(`Application ${name}'s sync ended`, { timeoutMs: 300_000, intervalMs: 1_000 }, async () => {
      state = (await status(name)).operationState;
      const phase = state?.phase ?? '';
      const fresh = since === undefined || (state?.startedAt ?? '') > since;
      return (fresh && ['Succeeded', 'Failed', 'Error'].includes(phase)) || `phase ${phase || 'none'}`;
    });
    if (state === undefined) throw new Error('no operation state');
    return state;
  };
  const remove = async (name: string): Promise<void> => {
    await custom()
      .deleteNamespacedCustomObject({ ...APPLICATIONS, namespace: ARGOCD_NAMESPACE, name })
      .catch(() => undefined);
  };
  return { create, status, operationEnded, remove };
}

/** The PostSync hook pod's entry in a sync's result. */
export function hookEntry(state: OperationState) {
  return state.syncResult?.resources?.find((r) => r.hookType === 'PostSync' && r.kind === 'Pod');
}
