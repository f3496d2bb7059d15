/**
 * `inferencecache explain CODE`: one row of the code table written out in full, for an operator who
 * cannot open docs/codes.md (an air-gapped cluster): the code, its status and checks, what it means,
 * what its checks read, the hint, the fix and the docs link. Text for a person and JSON for tools, from
 * the same row docs/codes.md renders, so the three never say different things.
 *
 * @module
 */

import { goJson } from '../go/json.ts';
import { wrapWords } from '../text/wrap.ts';
import { checkReadsText, fixSteps, type CodeRow } from './code-table.ts';
import { forTerminal } from './terminal-text.ts';

/** A code explained: its row of the code table and the link to its section of the docs. */
export interface CodeExplanation extends CodeRow {
  /** The code's section of docs/codes.md, under `--docs-base` when given. */
  readonly docs: string;
}

/** The widest line of the text form. */
const WIDTH = 100;
/** Where the values start, after the widest label (`Meaning: `) and a blank. */
const VALUE_COLUMN = 10;

/**
 * One labelled field: the label, then each paragraph wrapped into the value column, each on lines of
 * its own. Every text is escaped for the terminal, the docs base from the command line included.
 */
function field(label: string, paragraphs: readonly string[]): string[] {
  const indent = ' '.repeat(VALUE_COLUMN);
  const lines = paragraphs.flatMap((p) => wrapWords(forTerminal(p).toString(), WIDTH - VALUE_COLUMN));
  return lines.map((line, i) => `${i === 0 ? `${label}:`.padEnd(VALUE_COLUMN) : indent}${line}`);
}

/**
 * The text form: a heading line with the code and its status, then one labelled field each for the
 * checks, the meaning, what was read, the hint, the fix (a line per numbered step) and the docs link.
 */
export function explainText(e: CodeExplanation): string {
  const [only] = e.reads;
  const reads =
    e.reads.length === 1 && only !== undefined ? [checkReadsText(only)] : e.reads.map((r) => `${r.check}: ${checkReadsText(r)}`);
  const lines = [
    `${e.code}  ${e.status}`,
    '',
    ...field(e.checks.length === 1 ? 'Check' : 'Checks', [e.checks.join(', ')]),
    ...field('Meaning', [e.meaning]),
    ...field('Reads', reads),
    ...field('Hint', [e.hint]),
    ...field('Fix', fixSteps(e.fix)),
    ...field('Docs', [e.docs]),
  ];
  return lines.map((line) => `${line}\n`).join('');
}

/**
 * The JSON form: one object with the code, status, checks, meaning, what each check reads and probes
 * (`reads`, one entry per check), hint, fix and docs link. New keys may be added; none is renamed.
 */
export function explainJson(e: CodeExplanation): string {
  const reads = e.reads.map((r) => ({ check: r.check, kubernetes: [...r.kubernetes], probes: [...r.probes] }));
  const doc = { code: e.code, status: e.status, checks: [...e.checks], meaning: e.meaning, reads, hint: e.hint, fix: e.fix, docs: e.docs };
  return `${goJson(doc)}\n`;
}
