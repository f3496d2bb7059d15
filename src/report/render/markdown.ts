import { DEFAULT_FAIL_ON, guideOf, describeRule, type Finding, type Report } from '../finding.ts';
import { STATUSES, type Status } from '../status.ts';
import { forTerminal } from '../terminal-text.ts';

/**
 * The most characters the summary writes: a pull-request comment holds at most 65,536 (a job summary
 * 1 MiB). Rows past it are counted, not written, and the summary says so.
 */
export const MAX_MARKDOWN_CHARS = 60_000;

/** Room kept for the lines that close the summary (the folded sections' counts, the note of what was left out). */
const CLOSING_ROOM = 6_000;

/** A zero-width space as a character reference: it keeps `@name` from being a mention and `#12` from being a reference. */
const ZWSP = '&#8203;';

/**
 * Text from the report (or the cluster) as Markdown text in a table cell, inert: controls shown as for
 * a terminal (so no line break can end the row), every ASCII punctuation character escaped (so nothing
 * can close the cell, open a link, an image, emphasis, code or HTML), and a zero-width space after
 * `@`, `#` and `:` (so no user is mentioned, no issue referenced, no URL turned into a link).
 */
export function markdownText(text: string): string {
  return forTerminal(text)
    .toString()
    .replace(/[!-/:-@[-`{-~]/g, (ch) => (ch === '@' || ch === '#' || ch === ':' ? `\\${ch}${ZWSP}` : `\\${ch}`));
}

/** A link to a code's docs when the docs are an http(s) address, else the code alone. */
function codeLink(code: string, docs: string | undefined): string {
  if (docs === undefined || !/^https?:\/\/[^\s]+$/i.test(docs)) return markdownText(code);
  const target = docs.replace(/[()<>\s"'`\\]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${markdownText(code)}](${target})`;
}

/** A budget of characters shared by the sections: rows are written while it lasts. */
class Budget {
  #left: number;
  /** How many rows did not fit. */
  dropped = 0;

  constructor(chars: number) {
    this.#left = chars;
  }

  /** Spends `text` when it fits, and says whether it did. */
  take(text: string): boolean {
    if (text.length > this.#left) {
      this.dropped++;
      return false;
    }
    this.#left -= text.length;
    return true;
  }
}

const TABLE_HEAD = '| status | code | resource | message |\n|---|---|---|---|\n';

/** One finding as a table row: its code linked to the docs, the hint under the message for a finding that is not OK. */
function row(report: Report, f: Finding, note?: string): string {
  const guide = guideOf(report, f);
  const hint = guide === undefined ? '' : `<br>*hint:* ${markdownText(guide.hint)}`;
  const extra = note === undefined ? '' : `<br>*${markdownText(note)}*`;
  const docs = report.guides?.get(f.code)?.docs;
  return `| ${f.status} | ${codeLink(f.code, docs)} | ${markdownText(f.resource ?? '')} | ${markdownText(f.message)}${hint}${extra} |\n`;
}

/** A table of findings, as many rows as the budget allows. */
function* table(report: Report, entries: readonly { finding: Finding; note?: string }[], budget: Budget): Generator<string> {
  if (entries.length === 0 || !budget.take(TABLE_HEAD)) {
    budget.dropped += entries.length;
    return;
  }
  yield TABLE_HEAD;
  for (const { finding, note } of entries) {
    const line = row(report, finding, note);
    if (budget.take(line)) yield line;
  }
}

/** `n thing(s)`. */
function count(n: number, thing: string): string {
  return `${n} ${thing}${n === 1 ? '' : 's'}`;
}

/**
 * The report as a Markdown summary for `$GITHUB_STEP_SUMMARY` or a pull-request comment: a heading
 * with the counts and the exit code (and why a run is incomplete, which threshold counted when not
 * the default), then the FAIL and WARN findings as a table (FAIL first, each in emission order), each code linked to its docs with its
 * hint, then folded: the INFO findings, the OK findings counted by code, the suppressed findings with
 * their rules. Every string is inert Markdown ({@link markdownText}). At most {@link MAX_MARKDOWN_CHARS}
 * characters: the rows past it are counted in a closing line that points to the full report.
 */
export function* renderMarkdown(report: Report): Generator<string> {
  const { summary } = report;
  const budget = new Budget(MAX_MARKDOWN_CHARS - CLOSING_ROOM);
  const counts = STATUSES.slice()
    .reverse()
    .map((s) => `${summary[s.toLowerCase() as Lowercase<Status>]} ${s}`)
    .join(', ');
  yield `## inferencecache doctor: ${counts} (exit ${summary.exitCode})\n\n`;
  if (summary.incomplete !== undefined)
    yield `> **Incomplete:** ${markdownText(summary.incomplete)}. Findings are missing from this report.\n\n`;
  if (summary.failOn !== undefined && summary.failOn !== DEFAULT_FAIL_ON)
    yield `Findings at ${summary.failOn} and above count for the exit code.\n\n`;
  const of = (...statuses: Status[]) => report.findings.filter((f) => statuses.includes(f.status)).map((finding) => ({ finding }));
  const problems = [...of('FAIL'), ...of('WARN')];
  if (problems.length === 0) yield 'No FAIL or WARN findings.\n\n';
  else {
    yield* table(report, problems, budget);
    yield '\n';
  }
  const info = of('INFO');
  if (info.length > 0) {
    yield `<details><summary>${count(info.length, 'INFO finding')}</summary>\n\n`;
    yield* table(report, info, budget);
    yield '\n</details>\n\n';
  }
  const ok = new Map<string, number>();
  for (const f of report.findings) if (f.status === 'OK') ok.set(f.code, (ok.get(f.code) ?? 0) + 1);
  if (ok.size > 0) {
    yield `<details><summary>${count(summary.ok, 'OK finding')}</summary>\n\n| code | findings | meaning |\n|---|---|---|\n`;
    for (const [code, n] of ok) {
      const guide = report.guides?.get(code);
      yield `| ${codeLink(code, guide?.docs)} | ${n} | ${markdownText(guide?.meaning ?? '')} |\n`;
    }
    yield '\n</details>\n\n';
  }
  const suppressed = (report.suppressed ?? []).map((s) => ({
    finding: s.finding,
    note: `suppressed by ${describeRule(s.rule)}`,
  }));
  if (suppressed.length > 0) {
    yield `<details><summary>${count(suppressed.length, 'suppressed finding')} (never counted)</summary>\n\n`;
    yield* table(report, suppressed, budget);
    yield '\n</details>\n\n';
  }
  if (budget.dropped > 0)
    yield `${count(budget.dropped, 'finding')} did not fit in this summary: the full report is \`-o json\` or \`-o html\`.\n`;
}
