import { READS } from '../cluster/state/reads.ts';
import type { ClusterState, ReadName } from '../cluster/state/state.ts';
import type { DoctorPod } from '../cluster/gather/pod-identity.ts';
import type { ProbeResults } from '../probes/results.ts';
import type { Finding } from '../report/finding.ts';
import { API001 } from './api-read.ts';
import { emitterFor } from './check.ts';
import type { Check, JudgeInput, ProbeDeclaration, ProbeName, ReadDeclaration, ReadMode } from './check.ts';
import type { Read } from '../cluster/kinds/kind.ts';

/** Everything one run hands to its checks. */
export interface CheckInput {
  readonly state: ClusterState;
  readonly probes: ProbeResults;
  /** Read once at the start of the run. */
  readonly now: Date;
  /** The `--namespace` scope; empty means all namespaces. */
  readonly namespace: string;
  /** The doctor's own pod when it runs in one. */
  readonly self?: DoctorPod;
}

/**
 * A declared `items` read that failed, met while a check was judging. It unwinds the judge to the
 * runner, which turns it into API001; it never leaves `runCheck`.
 */
class ReadFailed extends Error {
  override readonly name = 'ReadFailed';
  readonly read: ReadName;
  constructor(read: ReadName, error: string) {
    super(readFailedMessage(read, error));
    this.read = read;
  }
}

function declared<K extends string, V>(declaration: { readonly [key in K]?: V }): [K, V][] {
  return Object.entries(declaration) as [K, V][];
}

/** Whether the run gathered every read and probe the check cannot do without. */
function ready(check: Check, input: CheckInput): boolean {
  const reads = declared<ReadName, ReadMode>(check.reads).every(
    ([name, mode]) => mode === 'optional' || mode === 'partial' || input.state[name] !== undefined,
  );
  const probes = declared<ProbeName, string>(check.probes).every(([name, mode]) => mode === 'optional' || input.probes[name] !== undefined);
  return reads && probes;
}

/**
 * The state as a check sees it: its declared reads and nothing else (an undeclared key is absent, so a
 * check cannot come to depend on a read it did not ask for, and the gather plan, which comes from the
 * declarations, always holds what it needs). An `items` read yields its items, or ends the check with
 * API001 when it failed; the lookup happens when the check reads the key, not before, so a read the
 * check never needed for its verdict is never reported.
 */
function stateView(reads: ReadDeclaration, state: ClusterState): ClusterState {
  const view: Record<string, unknown> = {};
  for (const [name, mode] of declared<ReadName, ReadMode>(reads)) {
    const value = state[name];
    if (mode !== 'items') {
      if (value !== undefined) view[name] = value;
      continue;
    }
    Object.defineProperty(view, name, {
      enumerable: true,
      get() {
        const read = value as Read<unknown>;
        if (!read.ok) throw new ReadFailed(name, read.error);
        return read.items;
      },
    });
  }
  return view;
}

/** The probe results a check declared, and no other. */
function probeView(probes: ProbeDeclaration, results: ProbeResults): ProbeResults {
  return Object.fromEntries(
    declared<ProbeName, string>(probes).flatMap(([name]) => (results[name] === undefined ? [] : [[name, results[name]]])),
  );
}

/** What API001 says of a list read that failed: the same words whichever way the check declared the read. */
export function readFailedMessage(read: ReadName, error: string): string {
  return `listing ${READS[read].kind} objects failed: ${error}`;
}

/** API001 for a failed `items` read, naming the Kind that could not be listed. */
function readFailedFinding(check: Check, failure: ReadFailed): Finding {
  return { code: 'API001', status: API001.status, check: check.name, resource: READS[failure.read].kind, message: failure.message };
}

/**
 * Runs one check: not at all when the run lacks what it requires, else its judge over its view of the
 * input, with the emitter made from the check's own name and codes, and the API001 guard of its
 * `items` reads.
 */
export function runCheck(check: Check, input: CheckInput): Finding[] {
  if (!ready(check, input)) return [];
  const view = {
    state: stateView(check.reads, input.state),
    probes: probeView(check.probes, input.probes),
    now: input.now,
    namespace: input.namespace,
    ...(input.self === undefined ? {} : { self: input.self }),
  } as JudgeInput<ReadDeclaration, ProbeDeclaration>;
  try {
    return check.judge(view, emitterFor(check.name, check.codes));
  } catch (err) {
    if (err instanceof ReadFailed) return [readFailedFinding(check, err)];
    throw err;
  }
}
