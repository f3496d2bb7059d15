import type { CodeGuide } from '../report/finding.ts';
import type { CheckReads, CodeRow } from '../report/code-table.ts';
import type { CodeDeclaration, Declaration } from './check.ts';
import { checkReads } from './check-reads.ts';
import { DECLARATIONS } from './registry.ts';
import { VERSION } from '../version.ts';

/** The docs/codes.md anchor of a code: its section heading, lower-cased. */
export function anchorOf(code: string): string {
  return `#${code.toLowerCase()}`;
}

/**
 * THE code table, derived from the check declarations: one row per code, in the order the checks
 * first declare them, each naming every check that may emit it and what each of them reads and
 * probes. A code declared by several checks must be declared by the same object (API001), so that it
 * cannot mean two things.
 *
 * @throws Error when two checks declare one code differently (a test keeps the registry free of that).
 */
export function codeTable(checks: readonly Declaration[] = DECLARATIONS): CodeRow[] {
  const rows = new Map<string, { declaration: CodeDeclaration; checks: string[]; reads: CheckReads[] }>();
  for (const check of checks) {
    const reads = checkReads(check);
    for (const [code, declaration] of Object.entries<CodeDeclaration>(check.codes)) {
      const row = rows.get(code);
      if (row === undefined) rows.set(code, { declaration, checks: [check.name], reads: [reads] });
      else if (row.declaration !== declaration)
        throw new Error(`${code} is declared differently by ${row.checks.join(', ')} and ${check.name}`);
      else {
        row.checks.push(check.name);
        row.reads.push(reads);
      }
    }
  }
  return [...rows].map(([code, { declaration, checks: names, reads }]) => ({
    code,
    ...declaration,
    checks: names,
    reads,
    anchor: anchorOf(code),
  }));
}

/**
 * Where the findings' `docs` links point unless `--docs-base` says otherwise: docs/codes.md of this
 * release in the project's repository (its main branch when run from source), so that a link matches
 * the codes of the binary that made it.
 */
export const DEFAULT_DOCS_BASE = `https://github.com/inference-cache/inferencecache-doctor/blob/${VERSION === 'dev' ? 'main' : `v${VERSION}`}/docs/codes.md`;

/**
 * The meaning, hint and docs link of every code, for the report: each code's anchor under `docsBase`
 * (any fragment of the base is replaced by the anchor).
 */
export function codeGuides(docsBase: string = DEFAULT_DOCS_BASE, rows: readonly CodeRow[] = codeTable()): Map<string, CodeGuide> {
  const base = docsBase.replace(/#.*$/s, '');
  return new Map(
    rows.map((row) => [
      row.code,
      { status: row.status, checks: row.checks, meaning: row.meaning, hint: row.hint, docs: `${base}${row.anchor}` },
    ]),
  );
}
