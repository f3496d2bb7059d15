import { READS } from '../cluster/reads.ts';
import type { ClusterState, Read, ReadName } from '../cluster/state.ts';
import type { DoctorPod } from '../cluster/pod-identity.ts';
import type { ProbeResults } from '../probes/results.ts';
import type { Finding } from '../report/finding.ts';
import { API001 } from './api-read.ts';
import type { Check, JudgeInput, ProbeDeclaration, ProbeName, ReadDeclaration, ReadMode } from './check.ts';

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
    super(`listing ${READS[read].kind} objects failed: ${error}`);
    this.read = read;
  }
}

function declared<K extends string, V>(declaration: { readonly [key in K]?: V }): [K, V][] {
  return Object.entries(declaration) as [K, V][];
}

/** Whether the run gathered every read and probe the check cannot do without. */
function ready(check: Check, input: CheckInput): boolean {
  const reads = declared<ReadName, ReadMode>(check.reads).every(([name, mode]) => mode === 'optional' || input.state[name] !== undefined);
  const probes = declared<ProbeName, string>(check.probes).every(([name, mode]) => mode === 'optional' || input.probes[name] !== undefined);
  return reads && probes;
}

/**
 * The state as a check sees it: an `items` read yields its items, or ends the check with API001 when
 * it failed. The lookup happens when the check reads the key, not before, so a read the check never
 * needed for its verdict is never reported. Every other key is passed through as it is: the types
 * already keep a check to its declared reads, and the declared-reads test records every key a check
 * touches.
 */
function stateView(reads: ReadDeclaration, state: ClusterState): ClusterState {
  return new Proxy<ClusterState>(
    {},
    {
      get(_, key) {
        const value: unknown = Reflect.get(state, key);
        if (typeof key !== 'string' || reads[key as ReadName] !== 'items') return value;
        const read = value as Read<unknown>;
        if (!read.ok) throw new ReadFailed(key as ReadName, read.error);
        return read.items;
      },
    },
  );
}

/** API001 for a failed `items` read, naming the Kind that could not be listed. */
function readFailedFinding(check: Check, failure: ReadFailed): Finding {
  return { code: 'API001', status: API001.status, check: check.name, resource: READS[failure.read].kind, message: failure.message };
}

/**
 * Runs one check: not at all when the run lacks what it requires, else its judge over its view of the
 * input, with the API001 guard of its `items` reads.
 */
export function runCheck(check: Check, input: CheckInput): Finding[] {
  if (!ready(check, input)) return [];
  const view = {
    state: stateView(check.reads, input.state),
    probes: input.probes,
    now: input.now,
    namespace: input.namespace,
    ...(input.self === undefined ? {} : { self: input.self }),
  } as JudgeInput<ReadDeclaration, ProbeDeclaration>;
  try {
    return check.judge(view);
  } catch (err) {
    if (err instanceof ReadFailed) return [readFailedFinding(check, err)];
    throw err;
  }
}
