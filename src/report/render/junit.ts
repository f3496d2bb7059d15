import { hex } from '../../go/runes.ts';
import { DEFAULT_FAIL_ON, describeRule, type Finding, type Report } from '../finding.ts';
import { rank } from '../status.ts';
import { forTerminal } from '../terminal-text.ts';

/**
 * Characters XML 1.0 cannot hold even as references: lone surrogates, U+FFFE and U+FFFF (the C0
 * controls are escaped visibly before, as for a terminal, since a CI page may be read in one).
 */
const NOT_XML = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g;

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text from the report as XML character data or an attribute value: controls shown, markup escaped. */
function xml(text: string): string {
  return forTerminal(text)
    .toString()
    .replace(NOT_XML, (ch) => `\\u${hex(ch.charCodeAt(0), 4)}`)
    .replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/** One testcase: its name is the code and resource, its class the check. */
interface Case {
  readonly finding: Finding;
  /** Why it is skipped: the rule that suppressed it. */
  readonly skipped?: string;
}

/** One testcase; `fails` when the finding counts for the exit code (and the report is complete). */
function testcase(report: Report, c: Case, fails: boolean): string {
  const f = c.finding;
  const name = f.resource === undefined || f.resource === '' ? f.code : `${f.code} ${f.resource}`;
  const open = `    <testcase classname="${xml(f.check)}" name="${xml(name)}">\n`;
  const close = '    </testcase>\n';
  if (c.skipped !== undefined) return `${open}      <skipped message="${xml(c.skipped)}"/>\n${close}`;
  const text = `${f.status}: ${f.message}`;
  if (fails) {
    const guide = report.guides?.get(f.code);
    const lines = guide === undefined ? [text] : [text, `hint: ${guide.hint}`, `docs: ${guide.docs}`];
    return `${open}      <failure type="${xml(f.code)}" message="${xml(text)}">${lines.map(xml).join('\n')}</failure>\n${close}`;
  }
  return `${open}      <system-out>${xml(text)}</system-out>\n${close}`;
}

/**
 * The report as JUnit XML for CI systems: one testsuite per check (in run order), one testcase per
 * finding, named by code and resource. A finding that counts for the exit code (at or above
 * `--fail-on`) is a `<failure>` carrying its hint and docs link; a suppressed one is `<skipped>` with
 * the rule that matched; any other passes, its status and message in `<system-out>`. An incomplete
 * report adds a testcase with an `<error>` saying why, so that a CI system never shows it green.
 * Every text from the cluster is escaped as for a terminal, then for XML.
 */
export function* renderJunit(report: Report): Generator<string> {
  const failOn = rank(report.summary.failOn ?? DEFAULT_FAIL_ON);
  const suites = new Map<string, Case[]>();
  const add = (c: Case) => {
    const list = suites.get(c.finding.check);
    if (list === undefined) suites.set(c.finding.check, [c]);
    else list.push(c);
  };
  for (const finding of report.findings) add({ finding });
  for (const s of report.suppressed ?? []) {
    const why = `suppressed by ${describeRule(s.rule)}`;
    add({ finding: s.finding, skipped: why });
  }
  const { incomplete } = report.summary;
  const fails = (c: Case) => incomplete === undefined && c.skipped === undefined && rank(c.finding.status) >= failOn;
  const counts = (cases: readonly Case[]) => ({
    tests: cases.length,
    failures: cases.filter(fails).length,
    skipped: cases.filter((c) => c.skipped !== undefined).length,
  });
  const total = counts([...suites.values()].flat());
  const errors = incomplete === undefined ? 0 : 1;
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `<testsuites name="inferencecache doctor" tests="${total.tests + errors}" failures="${total.failures}" errors="${errors}" skipped="${total.skipped}">\n`;
  for (const [check, cases] of suites) {
    const n = counts(cases);
    yield `  <testsuite name="${xml(check)}" tests="${n.tests}" failures="${n.failures}" errors="0" skipped="${n.skipped}">\n`;
    for (const c of cases) yield testcase(report, c, fails(c));
    yield '  </testsuite>\n';
  }
  if (incomplete !== undefined) {
    yield `  <testsuite name="inferencecache doctor" tests="1" failures="0" errors="1" skipped="0">\n`;
    yield `    <testcase classname="inferencecache doctor" name="run">\n      <error type="incomplete" message="${xml(incomplete)}"/>\n    </testcase>\n`;
    yield '  </testsuite>\n';
  }
  yield '</testsuites>\n';
}
