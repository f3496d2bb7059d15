import type { Finding, Report } from './finding.ts';
import type { Status } from './status.ts';
import { forTerminal } from './terminal-text.ts';

/**
 * Kubernetes keeps at most 4096 bytes of a container's termination message; anything longer is cut
 * from the front, which would lose the counts. The summary is built to fit instead.
 */
export const TERMINATION_MESSAGE_MAX_BYTES = 4096;

/** The statuses the summary names code by code, worst first. OK and INFO are only counted. */
const LISTED: readonly Status[] = ['FAIL', 'WARN'];

/** All findings of one code and status, with the distinct resources they name, in emission order. */
interface CodeGroup {
  readonly status: Status;
  readonly code: string;
  readonly count: number;
  readonly resources: readonly string[];
}

const utf8 = new TextEncoder();

function byteLength(text: string): number {
  return utf8.encode(text).length;
}

function groupFindings(findings: readonly Finding[]): CodeGroup[] {
  const groups = new Map<string, { status: Status; code: string; count: number; resources: Set<string> }>();
  for (const status of LISTED) {
    for (const finding of findings) {
      if (finding.status !== status) continue;
      const key = `${status} ${finding.code}`;
      const group = groups.get(key) ?? { status, code: finding.code, count: 0, resources: new Set<string>() };
      group.count += 1;
      // A resource comes from a cluster object: escaped, so that it can neither break the line format
      // nor drive the terminal of whoever reads the message (kubectl describe).
      if (finding.resource !== undefined && finding.resource !== '') group.resources.add(forTerminal(finding.resource).toString());
      groups.set(key, group);
    }
  }
  return [...groups.values()].map((g) => ({ status: g.status, code: g.code, count: g.count, resources: [...g.resources] }));
}

function headerOf(report: Report): string {
  const { exitCode, fail, warn, info, ok, incomplete, failOn, suppressed } = report.summary;
  const why = incomplete === undefined ? '' : ` (incomplete: ${forTerminal(incomplete).toString()})`;
  const threshold = failOn === undefined ? '' : ` (--fail-on ${failOn.toLowerCase()})`;
  const silenced = suppressed === undefined ? '' : `, ${suppressed} suppressed`;
  const attempts =
    report.attempts === undefined ? '' : `, after ${report.attempts.length} attempt${report.attempts.length === 1 ? '' : 's'}`;
  return `inferencecache doctor: exit ${exitCode}${threshold}${why}; ${fail} FAIL, ${warn} WARN, ${info} INFO, ${ok} OK${silenced}${attempts}`;
}

/** One group's line showing its first `shown` resources; the rest are counted, not named. */
function groupLine(group: CodeGroup, shown: number): string {
  const head = `${group.status} ${group.code} (${group.count})`;
  if (shown === 0) return head;
  const omitted = group.resources.length - shown;
  return `${head}: ${group.resources.slice(0, shown).join(', ')}${omitted > 0 ? `, +${omitted} more` : ''}`;
}

/** Bytes of `lines` joined, each ending in a newline. */
function textBytes(lineBytes: readonly number[]): number {
  return lineBytes.reduce((sum, n) => sum + n + 1, 0);
}

/**
 * Every code on its own line, then resources added one per code in turns while they fit, so that one
 * code with thousands of resources cannot crowd out the others. Undefined when even the bare code
 * lines do not fit.
 */
function codeLines(header: string, groups: readonly CodeGroup[], maxBytes: number): string | undefined {
  const shown = groups.map(() => 0);
  const bytes = [byteLength(header), ...groups.map((g) => byteLength(groupLine(g, 0)))];
  let total = textBytes(bytes);
  if (total > maxBytes) return undefined;
  for (let grew = true; grew;) {
    grew = false;
    for (const [i, group] of groups.entries()) {
      const next = (shown[i] ?? 0) + 1;
      if (next > group.resources.length) continue;
      const candidate = byteLength(groupLine(group, next));
      const delta = candidate - (bytes[i + 1] ?? 0);
      if (total + delta > maxBytes) continue;
      shown[i] = next;
      bytes[i + 1] = candidate;
      total += delta;
      grew = true;
    }
  }
  return `${[header, ...groups.map((g, i) => groupLine(g, shown[i] ?? 0))].join('\n')}\n`;
}

/** The codes of one status on one line, without counts or resources. */
function compactLine(status: Status, groups: readonly CodeGroup[]): string[] {
  const codes = groups.filter((g) => g.status === status).map((g) => g.code);
  return codes.length === 0 ? [] : [`${status} codes: ${codes.join(' ')}`];
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  let out = '';
  let used = 0;
  for (const char of text) {
    const n = byteLength(char);
    if (used + n > maxBytes) break;
    out += char;
    used += n;
  }
  return out;
}

/**
 * The termination message of a doctor run: the counts and exit code, then each FAIL and WARN code with
 * how often it was found and as many of its resources as fit in `maxBytes` (UTF-8). Resources are
 * dropped before codes, WARN codes before FAIL codes, so every FAIL code stays named as long as the
 * bare list of codes fits. Pure: the caller decides where it goes.
 */
export function terminationSummary(report: Report, maxBytes: number = TERMINATION_MESSAGE_MAX_BYTES): string {
  const header = headerOf(report);
  const groups = groupFindings(report.findings);
  const full = codeLines(header, groups, maxBytes);
  if (full !== undefined) return full;
  const warnTail = compactLine('WARN', groups)
    .map((line) => `${line}\n`)
    .join('');
  const failsOnly = codeLines(
    header,
    groups.filter((g) => g.status === 'FAIL'),
    maxBytes - byteLength(warnTail),
  );
  if (failsOnly !== undefined) return `${failsOnly}${warnTail}`;
  const compact = `${[header, ...compactLine('FAIL', groups), ...compactLine('WARN', groups)].join('\n')}\n`;
  return truncateUtf8(compact, maxBytes);
}
