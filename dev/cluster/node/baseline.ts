/**
 * The node as a suite found it, and how it is put back: the suites of the real node share one node
 * (test/support/shared-node.ts), so each must leave it as it was. A {@link NodeBaseline} is what the
 * API server held when the node (and each add-on) had started: every object a user made, not the ones
 * a controller derives from them, and the network namespaces of its pods. {@link nodeChanges} lists
 * how the node differs from it now; {@link restoreNode} deletes what was added since, in the order
 * that cannot wedge (admission webhooks first, then namespaces, then the rest, CRDs last), and waits
 * until the node is as it was.
 *
 * Read and deleted with kubectl, as an operator would: `api-resources` names every kind the server
 * serves, custom resources included, so nothing a suite adds goes unseen.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pollUntil } from '../../poll.ts';
import { netns } from './host-network.ts';

const run = promisify(execFile);

/** Kinds left out: records of what happened, objects a controller keeps for another, and objects the API server makes for a CRD. */
const DERIVED = new Set([
  'Event',
  'Event.events.k8s.io',
  'Endpoints',
  'EndpointSlice.discovery.k8s.io',
  'APIService.apiregistration.k8s.io',
]);

/** What a {@link NodeBaseline} keeps of one object. */
export interface BaselineObject {
  /** `Kind[.group]/namespace/name` (namespace empty for cluster-scoped objects): the identity kubectl uses. */
  readonly key: string;
  /**
   * What a suite must not change on an object it did not make: a Node's labels, taints and whether it
   * is schedulable; the generation (a spec change) of a built-in object that has one. Empty otherwise.
   */
  readonly fingerprint: string;
}

/** The node as a suite must find it. */
export interface NodeBaseline {
  readonly objects: readonly BaselineObject[];
  /** The network namespaces of the node's pods (CoreDNS's). */
  readonly netns: readonly string[];
}

interface ListedObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly generation?: number;
    readonly labels?: Record<string, string>;
    readonly ownerReferences?: readonly unknown[];
    readonly deletionTimestamp?: string;
  };
  readonly spec?: { readonly taints?: unknown; readonly unschedulable?: boolean };
}

/** `Kind` or `Kind.group`, as kubectl takes a type. */
function typeOf(o: ListedObject): string {
  const api = o.apiVersion ?? '';
  const group = api.includes('/') ? api.slice(0, api.lastIndexOf('/')) : '';
  return group === '' ? (o.kind ?? '') : `${o.kind ?? ''}.${group}`;
}

const keyOf = (o: ListedObject): string => `${typeOf(o)}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

function fingerprintOf(o: ListedObject): string {
  if (o.kind === 'Node' && o.apiVersion === 'v1')
    return JSON.stringify({
      labels: o.metadata?.labels ?? {},
      taints: o.spec?.taints ?? [],
      unschedulable: o.spec?.unschedulable ?? false,
    });
  const group = typeOf(o).split('.').slice(1).join('.');
  const builtIn = group === '' || group.endsWith('k8s.io') || !group.includes('.');
  return builtIn && o.metadata?.generation !== undefined ? `generation ${String(o.metadata.generation)}` : '';
}

/** Whether an object is one a user makes: not derived by a controller (no owner), not a derived kind. */
const made = (o: ListedObject): boolean => (o.metadata?.ownerReferences ?? []).length === 0 && !DERIVED.has(typeOf(o));

/** Every object of every kind the server lists and deletes, as kubectl reads them. */
async function listAll(kubectl: string, kubeconfig: string): Promise<ListedObject[]> {
  const k = (args: readonly string[]) => run(kubectl, ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 256 * 1024 * 1024 });
  // A kind can go between the two calls (a CRD deleted meanwhile): read again then.
  for (let attempt = 1; ; attempt++) {
    const types = (await k(['api-resources', '--verbs=list,delete', '-o', 'name'])).stdout.split('\n').filter((t) => t !== '');
    try {
      const { stdout } = await k(['get', types.join(','), '--all-namespaces', '-o', 'json']);
      return (JSON.parse(stdout) as { items?: ListedObject[] }).items ?? [];
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

/** The node as it is now. */
export async function nodeBaseline(kubectl: string, kubeconfig: string): Promise<NodeBaseline> {
  const objects = (await listAll(kubectl, kubeconfig))
    .filter(made)
    .map((o) => ({ key: keyOf(o), fingerprint: fingerprintOf(o) }))
    .sort((a, b) => a.key.localeCompare(b.key));
  return { objects, netns: netns().sort() };
}

/** How `now` differs from `baseline`, one line each (`added …`, `gone …`, `changed …`); empty when it is as it was. */
export function baselineChanges(baseline: NodeBaseline, now: NodeBaseline): string[] {
  const before = new Map(baseline.objects.map((o) => [o.key, o.fingerprint]));
  const after = new Map(now.objects.map((o) => [o.key, o.fingerprint]));
  const out: string[] = [];
  for (const [key, print] of after) {
    const was = before.get(key);
    if (was === undefined) out.push(`added ${key}`);
    else if (was !== print) out.push(`changed ${key}: ${was} → ${print}`);
  }
  for (const key of before.keys()) if (!after.has(key)) out.push(`gone ${key}`);
  const netnsBefore = new Set(baseline.netns);
  const extraNetns = now.netns.filter((n) => !netnsBefore.has(n));
  if (extraNetns.length > 0) out.push(`added network namespaces ${extraNetns.join(', ')}`);
  return out;
}

/** How the node differs from `baseline` now; empty when it is as it was. */
export async function nodeChanges(kubectl: string, kubeconfig: string, baseline: NodeBaseline): Promise<string[]> {
  return baselineChanges(baseline, await nodeBaseline(kubectl, kubeconfig));
}

/** The order objects are deleted in: what admits (and can refuse) the rest first, CRDs (and their objects) last. */
function deletionRank(type: string): number {
  if (/^(Mutating|Validating)WebhookConfiguration\.|^ValidatingAdmissionPolicy(Binding)?\./.test(type)) return 0;
  if (type === 'Namespace') return 1;
  if (type === 'CustomResourceDefinition.apiextensions.k8s.io') return 3;
  return 2;
}

/**
 * Deletes every object added since `baseline` and waits (up to `timeoutMs`) until the node is as it
 * was: its added namespaces gone with what they held, its pods' network namespaces released. An object
 * whose finalizer no controller will clear any more (its controller was deleted with it) is released
 * after a minute, as an operator would. Returns what could not be put back: changes to objects of the
 * baseline, which only the suite that made them can undo, or whatever outlasted the wait.
 */
export async function restoreNode(
  kubectl: string,
  kubeconfig: string,
  baseline: NodeBaseline,
  opts: { timeoutMs?: number; log?: (line: string) => void } = {},
): Promise<string[]> {
  const log = opts.log ?? (() => undefined);
  const k = (args: readonly string[]) => run(kubectl, ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 });
  const known = new Set(baseline.objects.map((o) => o.key));
  /** Deletes what was added and is not being deleted yet; says how many it asked for. */
  const deleteAdded = async (): Promise<number> => {
    const added = (await listAll(kubectl, kubeconfig)).filter((o) => made(o) && !known.has(keyOf(o)));
    const namespaces = new Set(added.filter((o) => o.kind === 'Namespace').map((o) => o.metadata?.name ?? ''));
    // Objects inside an added namespace go with it; an object already being deleted is left to finish.
    const toDelete = added.filter(
      (o) => o.metadata?.deletionTimestamp === undefined && (o.metadata?.namespace === undefined || !namespaces.has(o.metadata.namespace)),
    );
    if (toDelete.length > 0) log(`restoring the node: deleting ${toDelete.map(keyOf).join(', ')}`);
    // Pods first and at once (no grace period): nothing of a suite's needs to stop gracefully, and a
    // namespace waits for each of its pods' grace period before it goes.
    for (const ns of namespaces)
      await k(['delete', 'pods', '--all', '-n', ns, '--grace-period=0', '--force', '--wait=false', '--ignore-not-found']).catch(
        () => undefined,
      );
    for (const rank of [0, 1, 2, 3]) {
      for (const o of toDelete.filter((x) => deletionRank(typeOf(x)) === rank)) {
        const ns = o.metadata?.namespace;
        await k([
          'delete',
          `${typeOf(o)}/${o.metadata?.name ?? ''}`,
          ...(ns === undefined ? [] : ['-n', ns]),
          '--wait=false',
          '--ignore-not-found',
        ]);
      }
    }
    return toDelete.length;
  };
  await deleteAdded();
  const started = Date.now();
  let released = false;
  await pollUntil('the node as it was', { timeoutMs: opts.timeoutMs ?? 240_000, intervalMs: 1_000 }, async () => {
    const left = (await nodeChanges(kubectl, kubeconfig, baseline)).filter((c) => !c.startsWith('changed '));
    if (left.length === 0) return true;
    // A controller still stopping can make an object again (a leader-election Lease): deleted again.
    await deleteAdded();
    if (!released && Date.now() - started > 60_000) {
      released = true;
      await releaseFinalizers(kubectl, kubeconfig, log);
    }
    return `${String(left.length)} left: ${left.slice(0, 5).join('; ')}`;
  }).catch((err: unknown) => log((err as Error).message));
  return nodeChanges(kubectl, kubeconfig, baseline);
}

/** Clears the finalizers of every object being deleted: their controllers are gone, so nothing else will. */
async function releaseFinalizers(kubectl: string, kubeconfig: string, log: (line: string) => void): Promise<void> {
  const stuck = (await listAll(kubectl, kubeconfig)).filter((o) => o.metadata?.deletionTimestamp !== undefined && o.kind !== 'Namespace');
  for (const o of stuck) {
    const ns = o.metadata?.namespace;
    log(`restoring the node: ${keyOf(o)} waits on finalizers nothing will clear; clearing them`);
    await run(kubectl, [
      '--kubeconfig',
      kubeconfig,
      'patch',
      `${typeOf(o)}/${o.metadata?.name ?? ''}`,
      ...(ns === undefined ? [] : ['-n', ns]),
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]).catch(() => undefined);
  }
}
