/**
 * What the doctor knows of one Kind, declared once: how it is addressed, how a listed object becomes
 * the record the checks read, how it may be read in protobuf, and how `inferencecache dump` writes
 * it. The catalogue of reads (`state/reads.ts`), the state's keys (`state/state.ts`), the gathering,
 * the files of `doctor -f` and the dump all derive from these declarations (`kinds.ts`).
 *
 * @module
 */

import type { ApiAccess } from './access.ts';
import type { ProtobufList } from '../encoding/protobuf-list.ts';

/** The outcome of one list read: the items in API order, or why the read failed. */
export type Read<T> = { readonly ok: true; readonly items: readonly T[] } | { readonly ok: false; readonly error: string };

/** Namespace, name and uid of an object. */
export interface ObjectRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * How `inferencecache dump` writes the objects of a Kind. Every Kind must declare one (a test and the
 * type both insist), so that no Kind added for a new check leaves the cluster in a dump without someone
 * having decided what of it may. Whatever the policy, no object keeps its `managedFields` or kubectl's
 * last-applied configuration (which copies a whole applied object, literal values included), and no
 * string keeps the credentials of a URL (`https://user:password@host` is written `https://REDACTED@host`).
 */
export type DumpPolicy =
  /** The object as the API server sent it. */
  | { readonly write: 'whole' }
  /**
   * The object as sent, without the values at `remove`: dotted paths whose `[]` steps into every
   * element of a list (`spec.containers[].env[].value`). `why` says what those values may hold.
   * `commandLines` names lists of command-line words (a container's `command` and `args`) whose
   * secret-looking flag values (`--password=…`, `--token …`, `API_KEY=…`) are masked.
   */
  | {
      readonly write: 'redacted';
      readonly remove: readonly string[];
      readonly commandLines?: readonly string[];
      readonly why: string;
    }
  /**
   * Not the object, but a stand-in made from it that holds what the checks read and nothing of what
   * `why` names (a Secret's credentials).
   */
  | { readonly write: 'stand-in'; readonly standIn: (raw: unknown) => Record<string, unknown>; readonly why: string };

/**
 * How a Kind is read:
 * - `list`: one list per run, each object projected to a record the checks see as a read of its own;
 * - `views`: one list per run, kept as several views (the pods, the Events: `state/pod-views.ts`,
 *   `state/event-views.ts`);
 * - `by-name`: object by object, by name, never listed (the pull secrets).
 */
export type ReadShape = 'list' | 'views' | 'by-name';

/** One Kind, declared. `R` is the record a listed object is projected to, `S` how it is read. */
export interface KindDeclaration<R = unknown, S extends ReadShape = ReadShape> {
  /** The Kind, as API001, the files of `doctor -f` and the dump name it. */
  readonly kind: string;
  readonly access: ApiAccess;
  readonly reads: S;
  /**
   * How one listed object becomes its record: tolerant of any shape (a malformed object reads as
   * absent fields), undefined for an object no read keeps, which is dropped as it is read.
   */
  readonly project: (raw: unknown) => R | undefined;
  /**
   * The key an API server writes right after an object's `metadata`, for a built-in Kind whose
   * fields it writes in their Go order: lets a list leave `managedFields` (the last field of
   * `metadata`) unparsed (see `withoutManagedFields`).
   */
  readonly metadataFollowedBy?: string;
  /**
   * For a built-in Kind with many objects, its reading in protobuf: the API server encodes it for
   * half the CPU of JSON, and the doctor decodes only the fields it reads (docs/protobuf.md).
   */
  readonly protobuf?: ProtobufList;
  readonly dump: DumpPolicy;
}

/** Declares a Kind; the identity, there to keep the declaration's precise types. */
export function defineKind<R, const S extends ReadShape>(declaration: KindDeclaration<R, S>): KindDeclaration<R, S> {
  return declaration;
}
