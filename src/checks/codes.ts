import type { CodeRow } from '../report/code-table.ts';
import type { Check, CodeDeclaration } from './check.ts';
import { CHECKS } from './registry.ts';

/** The docs/codes.md anchor of a code: its section heading, lower-cased. */
export function anchorOf(code: string): string {
  return `#${code.toLowerCase()}`;
}

/**
 * THE code table, derived from the check declarations: one row per code, in the order the checks
 * first declare them, each naming every check that may emit it. A code declared by several checks
 * must be declared by the same object (API001), so that it cannot mean two things.
 *
 * @throws Error when two checks declare one code differently (a test keeps the registry free of that).
 */
export function codeTable(checks: readonly Check[] = CHECKS): CodeRow[] {
  const rows = new Map<string, { declaration: CodeDeclaration; checks: string[] }>();
  for (const check of checks) {
    for (const [code, declaration] of Object.entries<CodeDeclaration>(check.codes)) {
      const row = rows.get(code);
      if (row === undefined) rows.set(code, { declaration, checks: [check.name] });
      else if (row.declaration !== declaration)
        throw new Error(`${code} is declared differently by ${row.checks.join(', ')} and ${check.name}`);
      else row.checks.push(check.name);
    }
  }
  return [...rows].map(([code, { declaration, checks: names }]) => ({ code, ...declaration, checks: names, anchor: anchorOf(code) }));
}
