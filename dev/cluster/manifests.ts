/**
 * The development cluster's manifests (`dev/cluster/manifests/`) and putting objects into a control
 * plane: load YAML, apply and delete with server-side apply, install the CRDs and wait until they are
 * served, write a custom object's status. Objects are plain JSON-shaped values, exactly as written in
 * the YAML (wire field names), so tests can inspect and edit them freely.
 *
 * @module
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  loadYaml,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { describeError } from '../../src/text/errors.ts';
import { pollUntil } from '../poll.ts';

/** The folder of the manifests: the CRDs, the install's objects, the sample custom objects. */
export const MANIFESTS_DIR = path.join(import.meta.dirname, 'manifests');
export const FIELD_MANAGER = 'inferencecache-doctor-tests';
export const INSTALL_NAMESPACE = 'inference-cache-system';

export const GROUP = 'inferencecache.io';
export const VERSION = 'v1alpha1';

/** A Kubernetes object as it appears on the wire. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

export interface CustomResource {
  group: string;
  version: string;
  plural: string;
}

export interface CustomObjectRef extends CustomResource {
  namespace: string;
  name: string;
}

export const CACHE_BACKENDS: CustomResource = { group: GROUP, version: VERSION, plural: 'cachebackends' };
export const CACHE_TENANTS: CustomResource = { group: GROUP, version: VERSION, plural: 'cachetenants' };
export const CACHE_POLICIES: CustomResource = { group: GROUP, version: VERSION, plural: 'cachepolicies' };

/** Kinds used by our fixtures that are cluster-scoped (everything else is namespaced). */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);

export function isClusterScoped(obj: KubeObject): boolean {
  return CLUSTER_SCOPED.has(obj.kind);
}

function isKubeObject(v: unknown): v is KubeObject {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  const meta = o['metadata'] as Record<string, unknown> | undefined;
  return typeof o['apiVersion'] === 'string' && typeof o['kind'] === 'string' && typeof meta?.['name'] === 'string';
}

/** Parses every non-empty document of a YAML file; each must be a Kubernetes object. */
export function loadYamlFile(file: string): KubeObject[] {
  const docs = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  const out: KubeObject[] = [];
  for (const [i, doc] of docs.entries()) {
    if (doc.errors.length > 0) throw new Error(`${file} document ${i}: ${doc.errors[0]?.message ?? 'unknown error'}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isKubeObject(value)) throw new Error(`${file} document ${i}: not a Kubernetes object`);
    out.push(value);
  }
  return out;
}

/** Loads dev/cluster/manifests/<relPath>: one multi-document YAML file, or every *.yaml of a directory (sorted by name). */
export function loadManifests(relPath: string): KubeObject[] {
  const full = path.join(MANIFESTS_DIR, relPath);
  if (!fs.statSync(full).isDirectory()) return loadYamlFile(full);
  return fs
    .readdirSync(full)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => loadYamlFile(path.join(full, f)));
}

/**
 * Copies of install objects moved from inference-cache-system into `namespace`: namespaced objects and
 * ServiceAccount subjects move; the Namespace is renamed; cluster-scoped RBAC objects get a `-<namespace>`
 * suffix so several copies can coexist.
 */
export function retarget(objects: readonly KubeObject[], namespace: string): KubeObject[] {
  const suffix = (name: string): string => `${name}-${namespace}`;
  return objects.map((original) => {
    const obj = structuredClone(original);
    if (obj.kind === 'Namespace') obj.metadata.name = namespace;
    else if (!isClusterScoped(obj)) obj.metadata.namespace = namespace;
    if (obj.kind === 'ClusterRole' || obj.kind === 'ClusterRoleBinding') obj.metadata.name = suffix(obj.metadata.name);
    if (obj.kind === 'ClusterRoleBinding') {
      const roleRef = obj['roleRef'] as { kind: string; name: string };
      if (roleRef.kind === 'ClusterRole') roleRef.name = suffix(roleRef.name);
      for (const s of (obj['subjects'] ?? []) as { kind: string; namespace?: string }[]) {
        if (s.kind === 'ServiceAccount') s.namespace = namespace;
      }
    }
    return obj;
  });
}

export interface ApplyOptions {
  /** Namespace for namespaced objects that have none. */
  namespace?: string;
  /** Server-side dry run (dryRun=All): validated and admitted, never persisted. */
  dryRun?: boolean;
}

/**
 * Creates or updates each object in order with server-side apply (fieldManager inferencecache-doctor-tests,
 * force). Returns the server's answers.
 */
export async function applyObjects(kc: KubeConfig, objects: readonly KubeObject[], opts: ApplyOptions = {}): Promise<KubernetesObject[]> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  const applied: KubernetesObject[] = [];
  for (const original of objects) {
    const obj = structuredClone(original);
    if (opts.namespace !== undefined && !isClusterScoped(obj) && obj.metadata.namespace === undefined) {
      obj.metadata.namespace = opts.namespace;
    }
    // client-node serialises built-in kinds through its typed models (camelCase attribute names);
    // loadYaml turns the wire-shaped object into that model first, or fields such as
    // x-kubernetes-preserve-unknown-fields would be silently dropped.
    const typed = loadYaml<KubernetesObject>(JSON.stringify(obj));
    try {
      applied.push(
        await client.patch(typed, undefined, opts.dryRun ? 'All' : undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply),
      );
    } catch (err) {
      throw new Error(`apply ${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}: ${describeApiError(err)}`, {
        cause: err,
      });
    }
  }
  return applied;
}

/** Deletes each object, ignoring those already gone. */
export async function deleteObjects(kc: KubeConfig, objects: readonly KubeObject[], opts: { namespace?: string } = {}): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  for (const original of [...objects].reverse()) {
    const obj = structuredClone(original);
    if (opts.namespace !== undefined && !isClusterScoped(obj) && obj.metadata.namespace === undefined) {
      obj.metadata.namespace = opts.namespace;
    }
    try {
      await client.delete(obj);
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 404)) throw err;
    }
  }
}

/** Polls `look` every 150 ms, telling an API error by its Status message. */
function waitUntil(what: string, timeoutMs: number, look: () => Promise<true | string>): Promise<void> {
  return pollUntil(what, { timeoutMs, intervalMs: 150, describe: describeApiError }, look);
}

/**
 * Applies the CRDs (manifests/crds/) and waits until every CRD is Established and its kind is discoverable and
 * listable (a fresh client each time, so no stale discovery cache). Idempotent.
 */
export async function installCrds(kc: KubeConfig, timeoutMs = 30_000): Promise<KubeObject[]> {
  return applyCrds(kc, loadManifests('crds'), timeoutMs);
}

/** Applies `crds` (anyone's: Argo CD's, Flux's) and waits as {@link installCrds} does. Idempotent. */
export async function applyCrds(kc: KubeConfig, crds: KubeObject[], timeoutMs = 30_000): Promise<KubeObject[]> {
  await applyObjects(kc, crds);
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const spec = crd['spec'] as { group: string; names: { kind: string }; versions: { name: string; served: boolean }[] };
    await waitUntil(`CRD ${crd.metadata.name} Established`, timeoutMs, async () => {
      const live = await ext.readCustomResourceDefinition({ name: crd.metadata.name });
      return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true || 'not Established yet';
    });
    for (const v of spec.versions.filter((v) => v.served)) {
      await waitUntil(`${spec.names.kind} ${spec.group}/${v.name} listable`, timeoutMs, async () => {
        await KubernetesObjectApi.makeApiClient(kc).list(`${spec.group}/${v.name}`, spec.names.kind);
        return true;
      });
    }
  }
  return crds;
}

/** Merge-patches `status` through the /status subresource; returns the updated object. */
export async function writeStatus(kc: KubeConfig, ref: CustomObjectRef, status: Record<string, unknown>): Promise<KubeObject> {
  const api = kc.makeApiClient(CustomObjectsApi);
  return (await api.patchNamespacedCustomObjectStatus(
    { ...ref, body: { status }, fieldManager: FIELD_MANAGER },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  )) as KubeObject;
}

/** Reads a custom object as it is stored. */
export async function readCustomObject(kc: KubeConfig, ref: CustomObjectRef): Promise<KubeObject> {
  return (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject(ref)) as KubeObject;
}

/** Creates a namespace with its `default` ServiceAccount; an existing one is left as it is. */
export async function createNamespace(kc: KubeConfig, name: string, labels?: Record<string, string>): Promise<void> {
  try {
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name, ...(labels ? { labels } : {}) } } });
  } catch (err) {
    if (!(err instanceof ApiException && err.code === 409)) throw err;
  }
  // The test bed runs without kube-controller-manager unless asked, so nobody else creates the
  // namespace's `default` ServiceAccount, which ServiceAccount admission needs for every Pod.
  try {
    await kc.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: name, body: { metadata: { name: 'default' } } });
  } catch (err) {
    if (!(err instanceof ApiException && err.code === 409)) throw err;
  }
}

/**
 * Requests deletion of a namespace (absent is fine). Without kube-controller-manager the namespace
 * stays Terminating with its content, so use unique names per test.
 */
export async function deleteNamespace(kc: KubeConfig, name: string): Promise<void> {
  try {
    await kc.makeApiClient(CoreV1Api).deleteNamespace({ name });
  } catch (err) {
    if (!(err instanceof ApiException && err.code === 404)) throw err;
  }
}

/** A short message for an API error (status message when the server sent one). */
export function describeApiError(err: unknown): string {
  if (err instanceof ApiException) {
    const body: unknown = err.body;
    let message = typeof body === 'string' ? body : JSON.stringify(body);
    try {
      const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      /* not JSON */
    }
    return `HTTP ${err.code}: ${message}`;
  }
  return describeError(err);
}
