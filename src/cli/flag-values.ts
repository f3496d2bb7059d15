/**
 * The values of the flags that more than one command takes, each checked the one way: statuses,
 * output formats, durations, namespaces, the docs URL; and the guard that turns the argument parser's
 * errors into usage errors.
 *
 * @module
 */
import { parseGoDuration, formatGoDuration } from '../go/duration.ts';
import { formatFor, type Command as FormatCommand, type FormatOf } from '../report/output-formats.ts';
import { STATUSES, type Status } from '../report/status.ts';
import { describeError } from '../text/errors.ts';
import { UsageError } from './options.ts';

/** Default of `--timeout`. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** `--fail-on`, `--output-threshold`: a status in lower case, as the other flag values are. */
export function parseStatusFlag(flag: string, value: string): Status {
  const status = STATUSES.find((s) => s.toLowerCase() === value);
  if (status === undefined) {
    throw new UsageError(`invalid ${flag} ${JSON.stringify(value)} (want one of: ${STATUSES.map((s) => s.toLowerCase()).join(', ')})`);
  }
  return status;
}

/** `-o` of `command`: a format it writes, or a usage error that names the formats it does. */
export function parseOutput<C extends FormatCommand>(command: C, value: string): FormatOf<C> {
  const found = formatFor(command, value);
  if (!found.ok) throw new UsageError(found.error);
  return found.format;
}

/** Rewrites node's parseArgs errors into one short line that names the offending flag. */
export function usageGuard<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    const text = describeError(err);
    throw new UsageError(text.split('\n')[0]?.replace(/\. To specify a positional argument.*$/, '') ?? text);
  }
}

/**
 * The longest deadline a timer can hold (2^31-1 ms, about 24.8 days). Beyond it Node fires the timer
 * at once, which would fail every read; such a value is refused instead.
 */
export const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** A positive Go duration that a timer can hold, in milliseconds, or a usage error naming the limit. */
export function parseDeadline(flag: string, text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new UsageError(`invalid ${flag} ${JSON.stringify(text)}: use a duration such as 500ms, 30s or 2m`);
  if (!(ms > 0)) throw new UsageError(`invalid ${flag} ${JSON.stringify(text)}: it must be longer than 0`);
  if (ms > MAX_DEADLINE_MS) {
    throw new UsageError(`invalid ${flag} ${JSON.stringify(text)}: the longest is ${formatGoDuration(MAX_DEADLINE_MS)}`);
  }
  return ms;
}

/** A namespace name is a DNS-1123 label: 1 to 63 of a-z, 0-9 and '-', starting and ending alphanumeric. */
const DNS_1123_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * `--namespace`: empty for all namespaces, else a DNS-1123 label. Anything else (`..`, `a/b`, `%2e`)
 * could only widen or bend the URL it enters, so it is refused.
 */
export function parseNamespace(text: string): string {
  if (text === '' || DNS_1123_LABEL.test(text)) return text;
  throw new UsageError(
    `invalid --namespace ${JSON.stringify(text)}: a namespace name is at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit`,
  );
}

/** `--docs-base`: an absolute http or https URL (a link in a report must open somewhere). */
export function parseDocsBase(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`invalid --docs-base ${JSON.stringify(text)}: want an absolute URL such as https://docs.example.com/codes.html`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid --docs-base ${JSON.stringify(text)}: want an http or https URL`);
  }
  return text;
}
