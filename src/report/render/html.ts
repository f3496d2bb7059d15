import { formatGoDuration } from '../../go/duration.ts';
import { EXIT_CODE_WORDS } from '../exit-codes.ts';
import { guideOf, type Finding, type Report, type SuppressionRef } from '../finding.ts';
import { namespaceOf } from '../resource-namespace.ts';
import type { Status } from '../status.ts';
import { forTerminal } from '../terminal-text.ts';
import { HTML_CSP, HTML_SCRIPT, HTML_STYLE } from './html-assets.ts';

/** Sections of the report, most severe first; suppressed findings follow in a section of their own. */
const SECTION_ORDER = ['FAIL', 'WARN', 'INFO', 'OK'] as const satisfies readonly Status[];

/**
 * The sections whose groups start open. OK findings start folded, as in human output: at 20,000 pods
 * they would bury the few problems (and the browser renders a closed group's rows only when opened).
 */
const OPEN: ReadonlySet<Status> = new Set(['FAIL', 'WARN', 'INFO']);

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text from the report as HTML character data or a quoted attribute value: controls written visibly
 * first (a newline, an ESC or a bidi override in a name must not forge or reorder what a reader sees),
 * then markup escaped, so that no cluster-supplied string can open an element or leave an attribute.
 */
function esc(text: string): string {
  return forTerminal(text)
    .toString()
    .replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/**
 * The docs link as an `href`, or undefined when it is not an http(s) URL: `--docs-base` is the
 * operator's, but a `javascript:` or `data:` link would run or load something when followed. The URL
 * is the parsed one, so controls and spaces in it are percent-encoded.
 */
function safeHref(docs: string): string | undefined {
  const url = URL.parse(docs);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') ? esc(url.href) : undefined;
}

/** One finding as it is grouped: with the rule that silenced it, for a suppressed one. */
interface Entry {
  readonly finding: Finding;
  readonly rule?: SuppressionRef;
}

/** Entries by check, checks in the order they first appear. */
type ByCheck = Map<string, Entry[]>;

function addTo(groups: ByCheck, entry: Entry): void {
  const list = groups.get(entry.finding.check);
  if (list === undefined) groups.set(entry.finding.check, [entry]);
  else list.push(entry);
}

/** The rule that silenced a finding, in words. */
function ruleText(rule: SuppressionRef): string {
  const why = rule.reason === undefined ? '' : `: ${esc(rule.reason)}`;
  const until = rule.expires === undefined ? '' : `<br>until ${esc(rule.expires)}`;
  return `<code>${esc(rule.match)}</code> (${esc(rule.source)})${why}${until}`;
}

/** One row: code, resource and message (its hint and docs link under it), and the rule for a suppressed finding. */
function row(report: Report, entry: Entry): string {
  const f = entry.finding;
  const namespace = namespaceOf(f.resource);
  const status = esc(f.status);
  const attrs = [
    `data-status="${status}"`,
    `data-check="${esc(f.check)}"`,
    ...(namespace === undefined ? [] : [`data-namespace="${esc(namespace)}"`]),
    ...(entry.rule === undefined ? [] : ['data-suppressed=""']),
  ].join(' ');
  const guide = guideOf(report, f);
  let hint = '';
  if (guide !== undefined) {
    const href = safeHref(guide.docs);
    const docs = href === undefined ? esc(guide.docs) : `<a href="${href}" rel="noreferrer">${esc(guide.docs)}</a>`;
    hint = `<p class="hint">${esc(guide.hint)} See ${docs}</p>`;
  }
  const rule = entry.rule === undefined ? '' : `<td>${ruleText(entry.rule)}</td>`;
  return (
    `<tr ${attrs}><td class="code"><span class="s-${status}">${status}</span> <span>${esc(f.code)}</span></td>` +
    `<td class="res">${esc(f.resource ?? '')}</td><td><span>${esc(f.message)}</span>${hint}</td>${rule}</tr>\n`
  );
}

/** One section: a heading and a group per check, each a `<details>` holding a table of its findings. */
function* section(report: Report, id: string, title: string, groups: ByCheck, open: boolean, suppressed: boolean): Generator<string> {
  const count = [...groups.values()].reduce((n, list) => n + list.length, 0);
  yield `<section class="status" id="${id}" aria-labelledby="${id}-h">\n<h2 id="${id}-h">${title} <span class="n">(${count})</span></h2>\n`;
  for (const [check, entries] of groups) {
    yield `<details class="group"${open ? ' open' : ''}>\n<summary>${esc(check)} (<span class="count">${entries.length}</span>)</summary>\n`;
    yield `<table>\n<thead><tr><th class="code" scope="col">Code</th><th class="res" scope="col">Resource</th><th scope="col">Message</th>`;
    yield `${suppressed ? '<th class="rule" scope="col">Suppressed by</th>' : ''}</tr></thead>\n<tbody>\n`;
    for (const entry of entries) yield row(report, entry);
    yield '</tbody>\n</table>\n</details>\n';
  }
  yield '</section>\n';
}

/** The head: encoding, viewport, the policy, and the one style sheet. */
function head(): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${HTML_CSP}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>inferencecache doctor report</title>',
    `<style>${HTML_STYLE}</style>`,
    '</head>',
    '',
  ].join('\n');
}

/** The summary: counts, exit code, and what else decided it (`--fail-on`, an early stop, suppressions, `--wait`). */
function* summary(report: Report): Generator<string> {
  const { ok, info, warn, fail, exitCode, failOn, incomplete, suppressed } = report.summary;
  const words = EXIT_CODE_WORDS.find(([code]) => code === exitCode)?.[1] ?? '';
  yield `<header>\n<h1>inferencecache doctor</h1>\n<p class="note"><strong>Exit code ${exitCode}</strong>: ${words}</p>\n`;
  yield '<ul class="counts" aria-label="Findings by status">';
  for (const [status, n] of [
    ['FAIL', fail],
    ['WARN', warn],
    ['INFO', info],
    ['OK', ok],
  ] as const)
    yield `<li class="s-${status}">${n} ${status}</li>`;
  yield '</ul>\n';
  if (incomplete !== undefined) {
    yield `<p class="note incomplete"><strong>Incomplete:</strong> ${esc(incomplete)}; the checks that had not finished are missing or report what they could not read.</p>\n`;
  }
  if (failOn !== undefined) {
    yield `<p class="note">Only findings at ${failOn} or above count for the exit code (<code>--fail-on ${failOn.toLowerCase()}</code>).</p>\n`;
  }
  if (suppressed !== undefined) {
    yield `<p class="note">${suppressed} finding${suppressed === 1 ? '' : 's'} suppressed by a rule: <a href="#suppressed">listed apart</a>, not counted.</p>\n`;
  }
  const attempts = report.attempts ?? [];
  if (attempts.length > 0) {
    yield '<table class="attempts">\n<caption>Attempts (<code>--wait</code>)</caption>\n';
    yield '<thead><tr><th scope="col">Attempt</th><th scope="col">Ended after</th><th scope="col">Exit code</th><th scope="col">Codes still counted</th></tr></thead>\n<tbody>\n';
    for (const a of attempts) {
      const ms = formatGoDuration(Math.round(a.elapsedMs / 100) * 100);
      yield `<tr><td>${a.attempt}</td><td>${ms}</td><td>${a.exitCode}</td><td>${a.counted.map(esc).join(', ')}</td></tr>\n`;
    }
    yield '</tbody>\n</table>\n';
  }
  yield '</header>\n';
}

/** What the filters offer: the statuses, checks and namespaces of the findings present. */
interface Choices {
  readonly statuses: readonly Status[];
  readonly checks: readonly string[];
  readonly namespaces: readonly string[];
  /** Whether a finding names no namespace, for a "(none)" choice. */
  readonly withoutNamespace: boolean;
  readonly withSuppressed: boolean;
}

/**
 * The filters, hidden until the script reveals them (without JavaScript the page shows every finding
 * and no control that would do nothing). Option values carry a `=` before a name, so that no check or
 * namespace, however named, can pose as "all" (`''`) or "no namespace" (`-`).
 */
function* filters({ statuses, checks, namespaces, withoutNamespace, withSuppressed }: Choices): Generator<string> {
  yield '<form id="filters" role="search" aria-label="Filter findings" hidden>\n<fieldset><legend>Status</legend>\n';
  for (const s of statuses) yield `<label><input type="checkbox" name="status" value="${s}" checked> ${s}</label>\n`;
  if (withSuppressed) yield '<label><input type="checkbox" id="f-suppressed" checked> suppressed</label>\n';
  yield '</fieldset>\n<label class="field" for="f-check">Check<select id="f-check">\n<option value="">all checks</option>\n';
  for (const c of checks) yield `<option value="=${esc(c)}">${esc(c)}</option>\n`;
  yield '</select></label>\n<label class="field" for="f-namespace">Namespace<select id="f-namespace">\n<option value="">all namespaces</option>\n';
  if (withoutNamespace) yield '<option value="-">(none)</option>\n';
  for (const n of namespaces) yield `<option value="=${esc(n)}">${esc(n)}</option>\n`;
  yield '</select></label>\n';
  yield '<label class="field" for="f-text">Text in code, resource or message<input type="search" id="f-text" autocomplete="off" spellcheck="false"></label>\n';
  yield '<button type="button" id="f-clear">Clear filters</button>\n';
  yield '<p id="shown" aria-live="polite"></p>\n</form>\n';
}

/**
 * The report as one self-contained HTML page, for a person to read and filter in a browser: a
 * summary, then a section per status (FAIL, WARN, INFO, OK) holding a group per check, each finding a
 * table row with its hint and docs link when it is not OK, then the suppressed findings apart with the
 * rule that silenced each. Rows carry their status, check and namespace, for the filters a small
 * script adds; without JavaScript the page reads the same, unfiltered.
 *
 * The page is made to be opened from anywhere, a CI artefact or a mail attachment: it loads nothing
 * and connects nowhere, and its Content Security Policy (see `html-assets.ts`) would stop it if it
 * tried; every text from the report is escaped, controls made visible as for a terminal. Written
 * piece by piece, a row at a time, so that a report of 100,000 findings is never one string.
 */
export function* renderHtml(report: Report): Generator<string> {
  const byStatus = new Map<Status, ByCheck>(SECTION_ORDER.map((s) => [s, new Map()]));
  for (const finding of report.findings) {
    const groups = byStatus.get(finding.status);
    if (groups !== undefined) addTo(groups, { finding });
  }
  const suppressed: ByCheck = new Map();
  for (const s of report.suppressed ?? []) addTo(suppressed, { finding: s.finding, rule: s.rule });

  const checks = new Set<string>();
  const namespaces = new Set<string>();
  let withoutNamespace = false;
  const statuses = new Set<Status>();
  for (const entries of [...[...byStatus.values()].flatMap((g) => [...g.values()]), ...suppressed.values()]) {
    for (const { finding } of entries) {
      checks.add(finding.check);
      statuses.add(finding.status);
      const namespace = namespaceOf(finding.resource);
      if (namespace === undefined) withoutNamespace = true;
      else namespaces.add(namespace);
    }
  }

  yield head();
  yield '<body>\n<a class="skip" href="#findings">Skip to the findings</a>\n';
  yield* summary(report);
  if (statuses.size > 0) {
    yield* filters({
      statuses: SECTION_ORDER.filter((s) => statuses.has(s)),
      checks: [...checks].sort(),
      namespaces: [...namespaces].sort(),
      withoutNamespace,
      withSuppressed: suppressed.size > 0,
    });
  }
  yield '<main id="findings">\n';
  if (statuses.size === 0) yield '<p>The report holds no findings.</p>\n';
  for (const status of SECTION_ORDER) {
    const groups = byStatus.get(status);
    if (groups === undefined || groups.size === 0) continue;
    yield* section(report, status.toLowerCase(), `<span class="s-${status}">${status}</span>`, groups, OPEN.has(status), false);
  }
  if (suppressed.size > 0) yield* section(report, 'suppressed', 'Suppressed, not counted', suppressed, false, true);
  yield `</main>\n<script>${HTML_SCRIPT}</script>\n</body>\n</html>\n`;
}
