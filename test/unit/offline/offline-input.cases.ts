// FI001 and FI002 cases: the reads a run from files dropped (their Kind not given) → the findings that
// say what each Kind cost (`CODE Kind: message`). Shared with the registry test, which requires every code to be produced by a case.
import { OFFLINE_INPUT } from '../../../src/checks/offline-input.ts';
import { CHECKS, activeDeclarations } from '../../../src/checks/registry.ts';
import { SUPPRESSIONS } from '../../../src/checks/suppressions.ts';
import type { ReadName } from '../../../src/cluster/state/state.ts';

/** What a run from files judges with: the checks that need no probe, then the stages. */
export const OFFLINE_DECLARATIONS = activeDeclarations({ configOnly: true }, [...CHECKS, SUPPRESSIONS, OFFLINE_INPUT]);

export const OFFLINE_INPUT_CASES: readonly {
  readonly name: string;
  readonly dropped: readonly ReadName[];
  readonly want: readonly string[];
}[] = [
  { name: 'every Kind given: nothing to say', dropped: [], want: [] },
  {
    name: 'no pods: one FI002 for the Kind, naming every check that needed one of its views',
    dropped: ['selectedPods', 'installPods', 'pendingPodRequests'],
    want: [
      'FI002 Pod: the files hold no Pod objects (no Pod and no PodList), so CacheBackendHealth, EnginePodInjectionAudit, NodeFit and ImagePullability were skipped',
    ],
  },
  {
    name: 'no Namespaces: the suppression stage runs without them, nothing is skipped',
    dropped: ['namespaces'],
    want: ['FI001 Namespace: the files hold no Namespace objects (no Namespace and no NamespaceList), so Suppressions ran without them'],
  },
  {
    name: 'no Namespaces under -n: NamespaceScope is skipped too',
    dropped: ['namespaces', 'scopeNamespace'],
    want: [
      'FI002 Namespace: the files hold no Namespace objects (no Namespace and no NamespaceList), so NamespaceScope was skipped; Suppressions ran without them',
    ],
  },
  {
    name: 'Kinds in the order of the catalogue, one finding each; a check that decides part without Events says so',
    dropped: ['pullSecrets', 'cacheTenants', 'noMatchEvents', 'injectionEvents'],
    want: [
      'FI002 Event: the files hold no Event objects (no Event and no EventList), so OrphanPodCheck was skipped; EnginePodInjectionAudit judged only what it decides without them',
      'FI002 CacheTenant: the files hold no CacheTenant objects (no CacheTenant and no CacheTenantList), so CacheTenantHealth was skipped',
      'FI002 Secret: the files hold no Secret objects (no Secret and no SecretList), so ImagePullability was skipped',
    ],
  },
  {
    name: 'only the injection Events: EnginePodInjectionAudit judges its annotations, a WARN says the rest was not',
    dropped: ['injectionEvents'],
    want: [
      'FI002 Event: the files hold no Event objects (no Event and no EventList), so EnginePodInjectionAudit judged only what it decides without them',
    ],
  },
];
