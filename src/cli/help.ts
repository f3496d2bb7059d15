/**
 * `inferencecache doctor --help`, rendered from the flag declarations in the layout of Go's pflag:
 * a column of `-n, --namespace string`, then the description, wrapped and aligned.
 *
 * @module
 */
import { EXIT_CODE_WORDS } from '../report/exit-codes.ts';
import { DOCTOR_FLAGS, literalDefault, statedDefault, valueName, type FlagDeclaration } from './flags.ts';
import { EXPLAIN_FLAGS } from './explain-flags.ts';
import { MONITOR_FLAGS } from './monitor-flags.ts';
import { wrapWords as wrap } from '../text/wrap.ts';

/** The widest line the help wraps to, the width of its hand-wrapped closing paragraphs. */
const WIDTH = 106;

/** Flag names wider than this do not set the description column; they go on a line of their own. */
const WIDEST_NAME = 35;

const INTRO = `Run the inference-cache checks against a cluster and print a report.

Usage:
  inferencecache doctor [flags]

Flags:
`;

/** The paragraph after the flags: the exit codes (from their table), what counts, suppression by annotation. */
function closing(): string {
  const codes = EXIT_CODE_WORDS.map(([code, words]) => `${code} ${words}`).join(', ');
  const text = [
    `Exit codes: ${codes}.`,
    'Only findings at or above --fail-on count: with --fail-on fail, WARNs exit 0. Suppressed findings never count.',
    'An object can suppress its own findings with the annotation inferencecache.io/doctor-suppress: "CB004,EP001"',
    '(on a Namespace: every finding about something in it), with inferencecache.io/doctor-suppress-reason beside it.',
  ].join(' ');
  return `\n${wrap(text, WIDTH).join('\n')}\n`;
}

/** `-n, --namespace string`, with four blanks in place of a missing short name so long names align. */
function flagColumn(flag: FlagDeclaration): string {
  const value = valueName(flag);
  return `${flag.short === undefined ? '    ' : `-${flag.short}, `}--${flag.long}${value === undefined ? '' : ` ${value}`}`;
}

/** Joins two words so that wrapping never separates them; {@link flagLines} turns it back into a blank. */
const GLUE = '\u00a0';

/**
 * The default as pflag words it: `(default "auto")` for a literal string, `(default 30s)` for a literal
 * duration, `(default: …)` for a rule in prose. Markdown code spans lose their backticks, and
 * "(default" stays on the line of the word after it.
 */
function helpDefault(flag: FlagDeclaration): string | undefined {
  const stated = statedDefault(flag);
  if (stated === undefined) return undefined;
  const literal = literalDefault(stated);
  if (literal === undefined) return `(default:${GLUE}${stated.replaceAll('`', '')})`;
  const value = flag.kind === 'duration' ? literal.value : JSON.stringify(literal.value);
  return `(default${GLUE}${value}${literal.note === undefined ? '' : `, ${literal.note.replaceAll('`', '')}`})`;
}

/** The flag lines of a help text: two blanks, the name column, then the wrapped description. */
export function flagLines(flags: readonly FlagDeclaration[]): string {
  const columns = flags.map(flagColumn);
  const descriptionAt = 2 + Math.max(...columns.map((c) => c.length).filter((n) => n <= WIDEST_NAME)) + 2;
  const indent = ' '.repeat(descriptionAt);
  return flags
    .map((flag, i) => {
      const name = `  ${columns[i] ?? ''}`;
      const description = wrap([flag.help, helpDefault(flag)].filter((part) => part !== undefined).join(' '), WIDTH - descriptionAt);
      const lines = description.map((line) => `${indent}${line.replaceAll(GLUE, ' ')}`);
      if (name.length + 2 <= descriptionAt) lines[0] = `${name.padEnd(descriptionAt)}${lines[0]?.trimStart() ?? ''}`;
      else lines.unshift(name);
      return lines.map((line) => `${line}\n`).join('');
    })
    .join('');
}

/** The whole `inferencecache doctor --help` text. */
export function doctorHelp(): string {
  return `${INTRO}${flagLines(DOCTOR_FLAGS)}${closing()}`;
}

const MONITOR_INTRO = `Run the inference-cache checks again and again and serve the last run as Prometheus metrics.

Usage:
  inferencecache monitor [flags]

Serves /metrics (Prometheus text or OpenMetrics, as the scraper asks), /healthz (failing once no run
has completed for two intervals) and /readyz (ready once a run has completed). SIGTERM ends it within a
second. By default it does not probe the server's :8081: see --probe-controller-listener.

Flags:
`;

/** The whole `inferencecache monitor --help` text. */
export function monitorHelp(): string {
  const text = 'Exit codes: with --once, those of doctor; otherwise 0 when stopped by SIGTERM or SIGINT, 3 when it could not start.';
  return `${MONITOR_INTRO}${flagLines(MONITOR_FLAGS)}
${wrap(text, WIDTH).join('\n')}\n`;
}

const EXPLAIN_INTRO = `Explain one finding code: its status, the checks that emit it, what it means, what those checks read
and probe, the one-line hint, the fix step by step, and its section of docs/codes.md. Everything comes
from the declarations the checks are built from, inside this binary: no cluster, no network.

Usage:
  inferencecache explain CODE [flags]

CODE is a finding code such as CB004, in any case; 'inferencecache codes' lists every code.

Flags:
`;

/** The whole `inferencecache explain --help` text. */
export function explainHelp(): string {
  const text = 'Exit codes: 0 explained; 3 no code given, or one this version does not have (the message names the closest).';
  return `${EXPLAIN_INTRO}${flagLines(EXPLAIN_FLAGS)}
${wrap(text, WIDTH).join('\n')}\n`;
}
