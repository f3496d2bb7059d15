/**
 * The shape of a check. Each check is one declaration: its name, the codes it may emit (with status,
 * meaning, one-line hint and full fix), the reads and probe results it needs, and its judge, a pure function
 * from what it declared to its findings. The judge does not make findings from scratch: the runner
 * (`run.ts`) hands it an emitter made from the declaration's own name and codes, so a check names
 * itself once, and a finding can carry no other check's name, no undeclared code and no status but
 * its code's. Everything else derives from the declarations in the registry (`registry.ts`): the run
 * order, the code table and docs/codes.md, the gather plan, the RBAC the chart must grant, and the
 * API001 guard (`run.ts`).
 *
 * @module
 */

import { cutMessage } from '../go/cut.ts';
import { INTERNER_LIMIT, Interner } from '../text/interner.ts';
import type { Gathered, ItemOf, ListName, ReadName } from '../cluster/state/state.ts';
import type { DoctorPod } from '../cluster/gather/pod-identity.ts';
import type { ProbeResults } from '../probes/results.ts';
import type { Finding } from '../report/finding.ts';
import type { Status } from '../report/status.ts';
import { flatString } from '../text/flat-string.ts';

/** What the code table says about one code. A code's status never varies. */
export interface CodeDeclaration {
  readonly status: Status;
  /** What the finding means, in one line. */
  readonly meaning: string;
  /** What an operator does about it, in one line. */
  readonly hint: string;
  /**
   * The remediation in full, for `inferencecache explain` and docs/codes.md: two to five short
   * sentences or numbered steps (`1. … 2. …`), naming the command to run or the field to change where
   * there is one; for an OK code, that nothing needs doing and what keeps it so. Required, because an
   * operator without network access to the docs has only what the binary carries. Plain text: it is
   * printed to a terminal as well as rendered in Markdown.
   */
  readonly fix: string;
}

/**
 * How a check uses one read:
 * - `items`: the check judges the listed objects; a failed list is reported as API001 for the check
 *   by the runner, at the moment the check first looks at it, and the check ends there;
 * - `read`: the check gets the read as it is (items or error) and judges a failure itself;
 * - `optional`: as `read`, but the run may not have gathered it at all (`undefined`), and the check
 *   then loses nothing it would judge (context such as suppression annotations);
 * - `partial`: as `optional`, but without it the check decides only part of its findings (the rest is
 *   left undecided, never guessed): a run from files that lacks the Kind says so with a WARN (FI002).
 * A check whose `items` or `read` reads were not gathered does not run.
 */
export type ReadMode = 'items' | 'read' | 'optional' | 'partial';

/** The reads a check declares, by name; `items` only for list reads. */
export type ReadDeclaration = { readonly [K in ReadName]?: K extends ListName ? ReadMode : Exclude<ReadMode, 'items'> };

/** The name of one probe result: the server probes or the CacheBackend dials. */
export type ProbeName = keyof ProbeResults;

/** `required`: the check runs only when the probe ran (not under `--config-only`); `optional`: it may be absent. */
export type ProbeMode = 'required' | 'optional';

export type ProbeDeclaration = { readonly [K in ProbeName]?: ProbeMode };

/** What a judge sees of the gathered state: exactly its declared reads, each in its declared mode. */
export type StateView<R extends ReadDeclaration> = {
  readonly [K in keyof R & ReadName]: R[K] extends 'items'
    ? K extends ListName
      ? readonly ItemOf<K>[]
      : never
    : R[K] extends 'read'
      ? Gathered<K>
      : Gathered<K> | undefined;
};

/** What a judge sees of the probe results: its declared probes; an optional one may be absent. */
export type ProbeView<P extends ProbeDeclaration> = {
  readonly [K in keyof P & ProbeName]: P[K] extends 'required' ? NonNullable<ProbeResults[K]> : ProbeResults[K];
};

/** Everything a judge may look at. */
export interface JudgeInput<R extends ReadDeclaration, P extends ProbeDeclaration> {
  readonly state: StateView<R>;
  readonly probes: ProbeView<P>;
  /** The run's reference instant, read once at its start so that every time window uses the same one. */
  readonly now: Date;
  /** The `--namespace` scope; empty means all namespaces. */
  readonly namespace: string;
  /** The doctor's own pod when it runs in one; absent from a workstation. */
  readonly self?: DoctorPod;
}

/**
 * What a run derives from every declaration, checks and the suppression stage alike: the code table,
 * the gather plan, the RBAC the chart must grant.
 */
export interface Declaration {
  readonly name: string;
  readonly codes: { readonly [code: string]: CodeDeclaration };
  readonly reads: ReadDeclaration;
  readonly probes: ProbeDeclaration;
}

/**
 * Makes a finding of one check: the check's name and the code's status come from the declaration, so
 * the judge gives only what varies, and only declared codes type-check. An empty or absent resource
 * leaves the finding without one.
 */
export type Emit<C extends string> = (code: C, resource: string | undefined, message: string) => Finding;

/**
 * The emitter of a check whose codes object is `Codes`, for the helpers of a check file that make its
 * findings: they take the judge's emitter as a parameter typed `EmitFor<typeof CODES>`, so that they
 * too accept only the check's own codes, without repeating them as a union.
 */
export type EmitFor<Codes extends { readonly [code: string]: CodeDeclaration }> = Emit<keyof Codes & string>;

/** One check, declared. */
export interface Check<
  N extends string = string,
  C extends string = string,
  R extends ReadDeclaration = ReadDeclaration,
  P extends ProbeDeclaration = ProbeDeclaration,
> {
  /** The `check` field of its findings; part of the report contract. */
  readonly name: N;
  readonly codes: { readonly [K in C]: CodeDeclaration };
  readonly reads: R;
  readonly probes: P;
  /**
   * Pure: no I/O, no clock, no process. Returns its findings in emission order, each made with `emit`,
   * which the runner makes from this declaration's `name` and `codes` (see {@link emitterFor}), so a
   * check file never names itself again to make a finding; the judge hands `emit` on to the helpers
   * that make findings. It is an argument of its own rather than part of `input` because `input` is
   * what the judge looks at, the run's view of the cluster, while the emitter belongs to the
   * declaration and is the same in every run.
   */
  judge(input: JudgeInput<R, P>, emit: Emit<C>): Finding[];
}

/**
 * The emitter of a declaration's findings, made from its name and codes. The runner makes one for
 * each check's judge; the suppression stage, which has no judge, makes its own.
 */
export function emitterFor<N extends string, C extends string>(name: N, codes: { readonly [K in C]: CodeDeclaration }): Emit<C> {
  // Thousands of findings of one check often say the same thing about different resources.
  const messages = new Interner(INTERNER_LIMIT, flatString);
  return (code, resource, text) => {
    const { status } = codes[code];
    const message = messages.string(cutMessage(text));
    return resource === undefined || resource === ''
      ? { code, status, check: name, message }
      : { code, status, check: name, resource: flatString(resource), message };
  };
}

/**
 * Declares a check; the identity, there to infer the declaration's precise types: among them the codes,
 * which are all its judge's emitter accepts.
 */
export function defineCheck<const N extends string, C extends string, const R extends ReadDeclaration, const P extends ProbeDeclaration>(
  check: Check<N, C, R, P>,
): Check<N, C, R, P> {
  return check;
}
