/**
 * Flux HelmReleases as the suites on the real node drive them: the OCIRepository and HelmRelease of
 * chart/README.md's "Flux" section (the registry's address put for `registry.example.com`), applied
 * with a name and changes of each case's own, and read back the way `kubectl describe helmrelease` and
 * `kubectl events --for HelmRelease/<name>` show them (docs/real-node.md, "Flux").
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, type CoreV1Event, type KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { INSTALL_NAMESPACE, applyObjects, type KubeObject } from '../../dev/cluster/manifests.ts';
import { HELM_RELEASES, OCI_REPOSITORIES } from '../../dev/cluster/node/flux.ts';
import type { NodeRegistry } from '../../dev/cluster/node/registry.ts';
import { pollUntil } from '../../dev/poll.ts';
import { CHART_DIR } from './helm.ts';

/** The placeholder host of the README's manifests. */
const README_REGISTRY = 'registry.example.com';
/** The Secret holding the registry's CA, as the README's OCIRepository names it. */
export const REGISTRY_CA_SECRET = 'registry-ca';

/** The README's OCIRepository and HelmRelease, for a registry at `host`. */
export function readmeFluxManifests(host: string): { readonly source: KubeObject; readonly release: KubeObject } {
  const readme = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Flux\n')) ?? '';
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('chart/README.md has no yaml block under "## Flux"');
  const docs = parseAllDocuments(block.replaceAll(README_REGISTRY, host)).map((d) => d.toJS() as KubeObject);
  const source = docs.find((d) => d.kind === 'OCIRepository');
  const release = docs.find((d) => d.kind === 'HelmRelease');
  if (source === undefined || release === undefined) throw new Error("the README's Flux block lacks an OCIRepository or a HelmRelease");
  return { source, release };
}

/** The Secret with the registry's CA that the README's OCIRepository names in `certSecretRef`. */
export function registryCaSecret(registry: Pick<NodeRegistry, 'caFile'>, namespace: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: REGISTRY_CA_SECRET, namespace },
    type: 'Opaque',
    data: { 'ca.crt': readFileSync(registry.caFile).toString('base64') },
  };
}

/** A condition of a HelmRelease's status. */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** One entry of `status.history`: a release revision and its test hooks, as helm-controller keeps them. */
export interface Snapshot {
  readonly version: number;
  readonly status: string;
  readonly chartVersion: string;
  readonly action?: string;
  readonly testHooks?: Record<string, { readonly phase?: string; readonly lastStarted?: string; readonly lastCompleted?: string } | null>;
}

/** The parts of a HelmRelease's status the tests read. */
export interface ReleaseStatus {
  readonly observedGeneration?: number;
  readonly conditions?: readonly Condition[];
  readonly history?: readonly Snapshot[];
  readonly installFailures?: number;
  readonly upgradeFailures?: number;
}

type Json = Record<string, unknown>;

/** Merges `patch` into `base`: objects key by key, anything else replaced. */
function merged(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const old = out[key];
    out[key] =
      typeof value === 'object' && value !== null && !Array.isArray(value) && typeof old === 'object' && old !== null && !Array.isArray(old)
        ? merged(old as Json, value as Json)
        : value;
  }
  return out;
}

/** The HelmReleases of one cluster's Flux, made from the README's manifests. */
export function helmReleases(kc: KubeConfig, registry: Pick<NodeRegistry, 'host' | 'caFile'>) {
  const custom = () => kc.makeApiClient(CustomObjectsApi);
  const core = () => kc.makeApiClient(CoreV1Api);
  const manifests = () => readmeFluxManifests(registry.host);
  const namespace = INSTALL_NAMESPACE;

  /** Applies the README's OCIRepository and the CA Secret it names (the pull secret is the suite's). */
  const applySource = async (): Promise<void> => {
    await applyObjects(kc, [registryCaSecret(registry, namespace), manifests().source]);
  };
  /** Asks source-controller to look at the registry again now, as `flux reconcile source oci` does. */
  const refreshSource = async (): Promise<void> => {
    const name = manifests().source.metadata.name;
    await custom().patchNamespacedCustomObject({
      ...OCI_REPOSITORIES,
      namespace,
      name,
      body: [{ op: 'add', path: '/metadata/annotations', value: { 'reconcile.fluxcd.io/requestedAt': new Date().toISOString() } }],
    });
  };
  /** The README's HelmRelease named `name`, its spec merged with `spec`. */
  const release = (name: string, spec: Json = {}): KubeObject => {
    const base = manifests().release;
    return { ...base, metadata: { ...base.metadata, name }, spec: merged(base['spec'] as Json, spec) };
  };
  const create = async (name: string, spec: Json = {}): Promise<void> => {
    await custom().createNamespacedCustomObject({ ...HELM_RELEASES, namespace, body: release(name, spec) });
  };
  /** Replaces the HelmRelease's spec with the README's merged with `spec` (a new generation). */
  const update = async (name: string, spec: Json): Promise<void> => {
    await custom().patchNamespacedCustomObject({
      ...HELM_RELEASES,
      namespace,
      name,
      body: [{ op: 'replace', path: '/spec', value: release(name, spec)['spec'] }],
    });
  };
  const status = async (name: string): Promise<ReleaseStatus & { readonly generation: number }> => {
    const obj = (await custom().getNamespacedCustomObject({ ...HELM_RELEASES, namespace, name })) as {
      metadata: { generation: number };
      status?: ReleaseStatus;
    };
    return { ...(obj.status ?? {}), generation: obj.metadata.generation };
  };
  const condition = (s: ReleaseStatus, type: string): Condition | undefined => s.conditions?.find((c) => c.type === type);
  /**
   * Waits until helm-controller has reconciled the current generation and stopped (Ready no longer
   * Unknown, Reconciling gone), and `done` holds; returns the status.
   */
  const settled = async (name: string, done: (s: ReleaseStatus) => boolean = () => true, timeoutMs = 300_000) => {
    let last: ReleaseStatus | undefined;
    await pollUntil(`HelmRelease ${name} settled`, { timeoutMs, intervalMs: 1_000 }, async () => {
      const s = await status(name);
      last = s;
      const ready = condition(s, 'Ready');
      const reconciling = condition(s, 'Reconciling');
      const ok =
        s.observedGeneration === s.generation && ready !== undefined && ready.status !== 'Unknown' && reconciling === undefined && done(s);
      return ok || `Ready=${ready?.status ?? '?'} ${ready?.reason ?? ''}: ${ready?.message ?? ''}`;
    });
    if (last === undefined) throw new Error('no status');
    return last;
  };
  /** The Events about the HelmRelease, oldest first: what `kubectl events --for HelmRelease/<name>` lists. */
  const events = async (name: string): Promise<CoreV1Event[]> =>
    (
      await core().listNamespacedEvent({ namespace, fieldSelector: `involvedObject.kind=HelmRelease,involvedObject.name=${name}` })
    ).items.sort((a, b) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? '')));
  /** Deletes the HelmRelease (helm-controller uninstalls the release first) and the test pods Helm leaves behind. */
  const remove = async (name: string): Promise<void> => {
    await custom()
      .deleteNamespacedCustomObject({ ...HELM_RELEASES, namespace, name })
      .catch(() => undefined);
    await pollUntil(
      `HelmRelease ${name} gone`,
      { timeoutMs: 180_000, intervalMs: 1_000 },
      async () =>
        (await custom()
          .getNamespacedCustomObject({ ...HELM_RELEASES, namespace, name })
          .then(() => false)
          .catch(() => true)) || 'still there',
    );
    const pods = await core().listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/instance=${name}` });
    await Promise.all(
      pods.items.map((p) =>
        core()
          .deleteNamespacedPod({ namespace, name: p.metadata?.name ?? '', gracePeriodSeconds: 0 })
          .catch(() => undefined),
      ),
    );
  };
  return { applySource, refreshSource, create, update, status, condition, settled, events, remove, release };
}
