/**
 * `inferencecache dump`: the objects a doctor run reads, written for `doctor -f`. The gathering is the
 * doctor's own (the gather plan of a run without probes, from the checks' declarations), through a
 * source that keeps, beside each projected object, the object as the API server sent it; only the
 * objects that some read holds at the end are written, each Kind as one typed list (`PodList`), so that
 * an empty list still says "read, and none". Each object is written as its Kind's dump policy says
 * (`cluster/kinds/dump-policy.ts`): whole, redacted, or (a Secret) a stand-in without credentials.
 *
 * @module
 */

import { planRun } from '../checks/registry.ts';
import type { DumpOptions } from '../cli/options.ts';
import { obj, str } from '../cluster/encoding/wire.ts';
import { gatherClusterState } from '../cluster/gather/gather.ts';
import { apiVersionOf, collectionPath, objectPath } from '../cluster/kinds/access.ts';
import { dumpedObject } from '../cluster/kinds/dump-policy.ts';
import type { KindDeclaration } from '../cluster/kinds/kind.ts';
import { KINDS, kindEntries, type CollectionName } from '../cluster/kinds/kinds.ts';
import { unreadSecret } from '../cluster/kinds/secret.ts';
import { READS, withSources, type ReadSpec } from '../cluster/state/reads.ts';
import type { ClusterState, ReadName } from '../cluster/state/state.ts';
import { KubeApi, type ApiResult, type ListOptions, type ListResult, type ObjectSource } from '../cluster/transport/kube-api.ts';
import { loadKubeConfig } from '../cluster/transport/kubeconfig.ts';
import type { DumpDocument } from '../files/dump-stream.ts';
import { dumpHeadline } from '../files/manifest-documents.ts';
import { interruptionOf } from '../text/errors.ts';
import { VERSION } from '../version.ts';
import type { RunEnvironment } from './environment.ts';
import { overallSignal } from './deadline.ts';

/** A dump taken: what to write, and what went wrong while taking it. */
export interface DumpResult {
  /** The stream's content: its headline and notes always, its lists when the reads were done. */
  readonly document: DumpDocument;
  /** The reads that failed, each one line (a 403 on one pull secret included); their objects are left out. */
  readonly failures: readonly string[];
  /** Set when not one read got through (the first failure): there is nothing to write. */
  readonly nothingRead?: string;
  /** Set when the run was interrupted while reading: the stream is only its headline, marked incomplete. */
  readonly interrupted?: string;
}

/** An {@link ObjectSource} that keeps what it passes on: each list's objects some projection kept, and each GET's answer. */
class Recorder implements ObjectSource {
  readonly lists = new Map<string, unknown[]>();
  readonly gets = new Map<string, ApiResult>();
  /** How many reads got an answer (a 404 is one), and the first that did not. */
  answered = 0;
  firstFailure: string | undefined;
  readonly #api: ObjectSource;

  constructor(api: ObjectSource) {
    this.#api = api;
  }

  async list<T>(
    path: string,
    project: (item: unknown) => T | undefined,
    signal: AbortSignal,
    params?: Readonly<Record<string, string>>,
    options?: ListOptions,
  ): Promise<ListResult<T>> {
    const kept: unknown[] = [];
    this.lists.set(path, kept);
    // Every Namespace is kept, not only those a read holds (the annotated ones): a dump of all
    // namespaces judged later with -n must know whether that namespace existed.
    const all = path === collectionPath(KINDS.namespaces.access, '');
    const keep = (raw: unknown) => {
      const item = project(raw);
      if (item !== undefined || all) kept.push(raw);
      return item;
    };
    // The objects are written whole, so they are read in JSON: protobuf would give only what the projections read.
    const json = options?.metadataFollowedBy === undefined ? {} : { metadataFollowedBy: options.metadataFollowedBy };
    const result = await this.#api.list(path, keep, signal, params, json);
    this.#count(result.ok, result.ok ? undefined : `${path}: ${result.error}`);
    return result;
  }

  async get(path: string, signal: AbortSignal): Promise<ApiResult> {
    const answer = await this.#api.get(path, signal);
    this.gets.set(path, answer);
    this.#count(answer.ok || answer.status === 404, answer.ok ? undefined : `${path}: ${answer.error}`);
    return answer;
  }

  #count(answered: boolean, failure: string | undefined): void {
    if (answered) this.answered++;
    else this.firstFailure ??= failure;
  }
}

/** The key an object is known by in its Kind: namespace and name. */
function keyOf(raw: unknown): string {
  const metadata = obj(obj(raw)?.['metadata']);
  return `${str(metadata?.['namespace'])}/${str(metadata?.['name'])}`;
}

/** The pods some view of the state holds at the end (while the CacheBackends were on their way, more were kept). */
function podsHeld(state: ClusterState): Set<string> {
  const keys = new Set<string>();
  const add = (ref: { readonly namespace: string; readonly name: string }) => keys.add(`${ref.namespace}/${ref.name}`);
  if (state.pods?.ok === true) state.pods.items.forEach(add);
  if (state.selectedPods?.ok === true) state.selectedPods.items.forEach(add);
  if (state.pendingPodRequests?.ok === true) state.pendingPodRequests.items.forEach(add);
  if (state.installPods?.ok === true) state.installPods.items.forEach(({ pod }) => add(pod));
  return keys;
}

/** Why the reads of one list failed, from the first view of it the state holds; undefined when it was read. */
function failureOf(state: ClusterState, collection: CollectionName): string | undefined {
  for (const [name, spec] of Object.entries(READS) as [ReadName, ReadSpec][]) {
    if (spec.collection !== collection) continue;
    const read = state[name] as { ok: boolean; error?: string } | undefined;
    if (read !== undefined && !read.ok) return read.error ?? 'failed';
  }
  return undefined;
}

/** A typed list document. */
function typedList(apiVersion: string, kind: string, items: readonly unknown[]): Record<string, unknown> {
  return { apiVersion, kind: `${kind}List`, items };
}

/**
 * The lists of a dump, in the order of the Kinds, those read by name last (their names come from the
 * others), and the reads that failed.
 */
function documents(recorder: Recorder, state: ClusterState, reads: ReadonlySet<ReadName>, namespace: string) {
  const lists: Record<string, unknown>[] = [];
  const failures: string[] = [];
  const pods = podsHeld(state);
  const kinds = kindEntries();
  const inOrder = [...kinds.filter(([, k]) => k.reads !== 'by-name'), ...kinds.filter(([, k]) => k.reads === 'by-name')];
  for (const [name, declaration] of inOrder) {
    const { kind, access } = declaration;
    const apiVersion = apiVersionOf(access);
    // A Kind read by name (the pull secrets) is planned by a read of its Kind, a listed one by a view of its list.
    const byName = declaration.reads === 'by-name';
    const planned = [...reads].some((read) => {
      const spec: ReadSpec = READS[read];
      return byName ? spec.collection === undefined && spec.kind === kind : spec.collection === name;
    });
    if (!planned) continue;
    if (byName) {
      const found = secrets(recorder, declaration);
      failures.push(...found.failures);
      lists.push(typedList(apiVersion, kind, found.items));
      continue;
    }
    if (name === 'namespaces' && namespace !== '') {
      // Under --namespace the one Namespace is read by name, for its annotations and its existence.
      const answer = recorder.gets.get(objectPath(READS.scopeNamespace.access, '', namespace));
      if (answer?.ok === false && answer.status !== 404) failures.push(`${kind} ${namespace}: ${answer.error}`);
      else lists.push(typedList(apiVersion, kind, answer?.ok === true ? [dumpedObject(declaration, answer.body)] : []));
      continue;
    }
    const failure = failureOf(state, name as CollectionName);
    if (failure !== undefined) {
      failures.push(`${kind}: ${failure}`);
      continue;
    }
    const raws = recorder.lists.get(collectionPath(access, namespace)) ?? [];
    const unique = new Map(raws.map((raw) => [keyOf(raw), raw]));
    const items = [...unique].filter(([key]) => name !== 'pods' || pods.has(key)).map(([, raw]) => dumpedObject(declaration, raw));
    lists.push(typedList(apiVersion, kind, items));
  }
  return { lists, failures };
}

/**
 * The pull secrets read, as stand-ins: found ones without credentials, unread ones (other than not
 * found) with their error, which is also a failure of the dump.
 */
function secrets(recorder: Recorder, declaration: KindDeclaration): { items: Record<string, unknown>[]; failures: string[] } {
  const items: Record<string, unknown>[] = [];
  const failures: string[] = [];
  for (const [path, answer] of recorder.gets) {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(path);
    if (m === null) continue;
    const [namespace, name] = [m[1] as string, m[2] as string];
    if (answer.ok) items.push(dumpedObject(declaration, answer.body));
    else if (answer.status !== 404) {
      items.push(unreadSecret(namespace, name, answer.status, answer.error));
      failures.push(`Secret ${namespace}/${name}: ${answer.status === undefined ? '' : `${answer.status} `}${answer.error}`);
    }
  }
  items.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  return { items, failures };
}

/** What the dump's comment says, before any failed read. */
const NOTES = [
  "Only the objects inferencecache doctor's checks read; Secrets carry their type and registries, no credential.",
  'Judge it with: inferencecache doctor -f <this file>',
];

/** Takes a dump of the cluster the kubeconfig names: reads it, and lays out what is to be written. */
export async function takeDump(options: DumpOptions, environment: RunEnvironment): Promise<DumpResult> {
  const { clock, interrupt } = environment;
  const signal = overallSignal(options.timeoutMs, interrupt);
  const kc = await loadKubeConfig(options, environment.env, environment.files.serviceAccountDir, signal);
  const recorder = new Recorder(new KubeApi(kc, environment.env));
  const takenAt = clock();
  const headline = dumpHeadline(takenAt, VERSION, kc.getCurrentContext(), options.namespace);
  const plan = planRun({ configOnly: true });
  const state = await gatherClusterState(recorder, { reads: plan.reads, namespace: options.namespace }, signal);
  const interrupted = interruptionOf(interrupt);
  if (interrupted !== undefined)
    return { document: { headline, notes: [], lists: [] }, failures: [], interrupted: `${interrupted} while reading the cluster` };
  if (recorder.answered === 0) {
    const why = recorder.firstFailure ?? 'no read was made';
    return { document: { headline, notes: [], lists: [] }, failures: [], nothingRead: why };
  }
  const { lists, failures } = documents(recorder, state, withSources(plan.reads), options.namespace);
  const notes = [...NOTES, ...failures.map((f) => `A read failed, so its objects are missing: ${f}`)];
  return { document: { headline, notes, lists }, failures };
}
