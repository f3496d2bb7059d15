/**
 * Finding a row of the code table by what an operator typed for `inferencecache explain`: any case,
 * blanks around it ignored. What is not a code is answered with what it most likely meant, so that a
 * slip (`CB04`, `cbo04`) costs one more try, not a trip to the docs.
 *
 * @module
 */

import { orList } from '../text/or-list.ts';
import { CODE_SHAPE } from './code-shape.ts';
import type { CodeRow } from './code-table.ts';

/** How far (in edits) a typed text may be from a code for that code to be offered instead. */
const CLOSE_SHAPELESS = 2;
/** For a text shaped like a code of an unknown prefix, only a one-character slip is offered. */
const CLOSE_SHAPED = 1;
/** How many close codes an answer names at most. */
const NAMED = 5;

/** The row `typed` names, or the usage error to print. */
export type CodeLookup = { readonly ok: true; readonly row: CodeRow } | { readonly ok: false; readonly error: string };

/** Edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`: optimal string alignment. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] ?? [];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The codes nearest to `wanted`, at most `limit` edits away, in table order. */
function closest(rows: readonly CodeRow[], wanted: string, limit: number): string[] {
  const scored = rows.map((row) => ({ code: row.code, distance: editDistance(wanted, row.code) }));
  const best = Math.min(...scored.map((s) => s.distance));
  if (best > limit) return [];
  return scored.filter((s) => s.distance === best).map((s) => s.code);
}

/** `A`, `A or B`, `A, B or C`, and how many more past {@link NAMED}. */
function someOf(codes: readonly string[]): string {
  const more = codes.length > NAMED ? ` (and ${codes.length - NAMED} more)` : '';
  return `${orList(codes.slice(0, NAMED))}${more}`;
}

const LIST_THEM = "run 'inferencecache codes' to list them";

/**
 * The row of the code `typed` names, in any case; otherwise the error an operator reads: for a text
 * shaped like a code, that this version has no such code (and the codes of its prefix, when the prefix
 * is known); for anything else, the closest codes or how to list them all. `version` names the build.
 */
export function lookupCode(rows: readonly CodeRow[], typed: string, version: string): CodeLookup {
  const wanted = typed.trim().toUpperCase();
  const row = rows.find((r) => r.code === wanted);
  if (row !== undefined) return { ok: true, row };
  const prefix = CODE_SHAPE.exec(wanted)?.[1];
  if (prefix !== undefined) {
    const notOurs = `${wanted} is not a code of this version of inferencecache (${version})`;
    const family = rows.filter((r) => CODE_SHAPE.exec(r.code)?.[1] === prefix).map((r) => r.code);
    if (family.length > 0) return { ok: false, error: `${notOurs}; its ${prefix} codes are ${family.join(', ')}` };
    const near = closest(rows, wanted, CLOSE_SHAPED);
    return { ok: false, error: near.length > 0 ? `${notOurs}; did you mean ${someOf(near)}?` : `${notOurs}; ${LIST_THEM}` };
  }
  const near = closest(rows, wanted, CLOSE_SHAPELESS);
  const unknown = `unknown code ${JSON.stringify(typed)}`;
  if (near.length > 0) return { ok: false, error: `${unknown}; did you mean ${someOf(near)}?` };
  return { ok: false, error: `${unknown}: a code is two or three letters and three digits, such as CB004; ${LIST_THEM}` };
}
