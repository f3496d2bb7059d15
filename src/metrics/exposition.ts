/**
 * The two formats a Prometheus server scrapes, written from one description of the metrics: the
 * Prometheus text format 0.0.4 (what `promtool check metrics` lints) and OpenMetrics 1.0 (what
 * Prometheus asks for first). They differ in how a family is named (a counter's family is `x_total`
 * in text and `x` in OpenMetrics), in the `info` type, in how a bucket bound is written, in the escapes
 * of a help text, and in the `# EOF` that ends OpenMetrics. Written by hand rather than with a client
 * library: the families are few and rebuilt from each run's report, and both formats must be exactly
 * what the tests read.
 *
 * @module
 */

/** A series' labels, by name. Values may come from the cluster: they are escaped when written. */
export type Labels = Readonly<Record<string, string>>;

/** One value of a counter, gauge or info family. */
export interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

/** One histogram series: the cumulative count at each bound of its family, then the total count and sum. */
export interface HistogramSeries {
  readonly labels: Labels;
  /** How many observations were at most each of the family's bounds, in the bounds' order. */
  readonly cumulative: readonly number[];
  readonly count: number;
  readonly sum: number;
}

interface FamilyCommon {
  /**
   * The family's name by the OpenMetrics rules: a counter's without `_total`, an info family's without
   * `_info`; the samples carry the suffixes.
   */
  readonly name: string;
  readonly help: string;
}

/** A metric family: its name, its help, its type, and its series. */
export type MetricFamily =
  | (FamilyCommon & { readonly type: 'counter' | 'gauge' | 'info'; readonly samples: readonly Sample[] })
  | (FamilyCommon & {
      readonly type: 'histogram';
      /** The upper bounds of the buckets, ascending, without +Inf (always added). */
      readonly bounds: readonly number[];
      readonly series: readonly HistogramSeries[];
    });

/** A format the `/metrics` endpoint writes. */
export type ExpositionFormat = 'text' | 'openmetrics';

/** The Content-Type of each format, as a scraper expects it. */
export const CONTENT_TYPES: Readonly<Record<ExpositionFormat, string>> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** A metric or label name as both formats allow it. */
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value or an OpenMetrics help text: backslash, double quote and line feed escaped. */
function escapeQuoted(text: string): string {
  return text.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** A help text of the text format: backslash and line feed escaped (a double quote is kept). */
function escapeTextHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/** A sample value: integers as written, `+Inf`, `-Inf` and `NaN` by name. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** A bucket bound: OpenMetrics writes a float with its point (`1.0`), the text format as Go prints it (`1`). */
function formatBound(bound: number, format: ExpositionFormat): string {
  if (bound === Infinity) return '+Inf';
  const text = String(bound);
  return format === 'openmetrics' && Number.isInteger(bound) && !text.includes('e') ? `${text}.0` : text;
}

/** `{a="1",b="2"}`, or nothing for no labels. */
function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([name, value]) => {
    if (!LABEL_NAME.test(name)) throw new Error(`invalid label name ${JSON.stringify(name)}`);
    return `${name}="${escapeQuoted(value)}"`;
  });
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

/** The name a family is declared under in `format`, and the suffix its samples carry. */
function naming(family: MetricFamily, format: ExpositionFormat): { declared: string; sample: string } {
  const suffix = family.type === 'counter' ? '_total' : family.type === 'info' ? '_info' : '';
  const sample = `${family.name}${suffix}`;
  return { declared: format === 'openmetrics' ? family.name : sample, sample };
}

/** The type line's word: the text format has no `info`, which it writes as a gauge. */
function typeWord(family: MetricFamily, format: ExpositionFormat): string {
  return family.type === 'info' && format === 'text' ? 'gauge' : family.type;
}

/** The lines of one family. */
function* familyLines(family: MetricFamily, format: ExpositionFormat, common: Labels): Generator<string> {
  if (!NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`);
  const { declared, sample } = naming(family, format);
  const help = format === 'openmetrics' ? escapeQuoted(family.help) : escapeTextHelp(family.help);
  yield `# HELP ${declared} ${help}\n`;
  yield `# TYPE ${declared} ${typeWord(family, format)}\n`;
  if (family.type !== 'histogram') {
    for (const s of family.samples) yield `${sample}${labelText({ ...common, ...s.labels })} ${formatValue(s.value)}\n`;
    return;
  }
  for (const series of family.series) {
    const labels = { ...common, ...series.labels };
    const bounds = [...family.bounds, Infinity];
    const counts = [...series.cumulative, series.count];
    for (const [i, bound] of bounds.entries()) {
      yield `${family.name}_bucket${labelText({ ...labels, le: formatBound(bound, format) })} ${formatValue(counts[i] ?? series.count)}\n`;
    }
    yield `${family.name}_sum${labelText(labels)} ${formatValue(series.sum)}\n`;
    yield `${family.name}_count${labelText(labels)} ${formatValue(series.count)}\n`;
  }
}

/**
 * The families in `format`, each series with the `common` labels first (the `cluster` of a fleet);
 * OpenMetrics ends with `# EOF`.
 *
 * @throws Error for a metric or label name neither format allows (a bug: names are the doctor's own).
 */
export function expose(families: readonly MetricFamily[], format: ExpositionFormat, common: Labels = {}): string {
  const lines: string[] = [];
  for (const family of families) lines.push(...familyLines(family, format, common));
  if (format === 'openmetrics') lines.push('# EOF\n');
  return lines.join('');
}

/** One media range of an Accept header: its type and quality. */
interface MediaRange {
  readonly type: string;
  readonly version: string | undefined;
  readonly q: number;
}

function parseAccept(header: string): MediaRange[] {
  return header.split(',').flatMap((part) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim());
    if (type === '') return [];
    let q = 1;
    let version: string | undefined;
    for (const param of params) {
      const [key = '', value = ''] = param.split('=').map((p) => p.trim());
      if (key.toLowerCase() === 'q') q = Number.parseFloat(value);
      if (key.toLowerCase() === 'version') version = value;
    }
    return Number.isFinite(q) ? [{ type: type.toLowerCase(), version, q }] : [];
  });
}

/** The format a media range asks for, if it is one of ours. */
function formatOf(range: MediaRange): ExpositionFormat | undefined {
  if (range.type === 'application/openmetrics-text') {
    return range.version === undefined || range.version === '1.0.0' || range.version === '0.0.1' ? 'openmetrics' : undefined;
  }
  if (range.type === 'text/plain') return range.version === undefined || range.version === '0.0.4' ? 'text' : undefined;
  if (range.type === '*/*' || range.type === 'text/*') return 'text';
  return undefined;
}

/**
 * The format to answer a scrape with, by its Accept header: the one of highest quality among those the
 * header names (the first named on a tie); the text format when it names none of them, or is absent.
 */
export function negotiate(accept: string | undefined): ExpositionFormat {
  let best: { format: ExpositionFormat; q: number } | undefined;
  for (const range of parseAccept(accept ?? '')) {
    const format = formatOf(range);
    if (format === undefined || range.q <= 0) continue;
    if (best === undefined || range.q > best.q) best = { format, q: range.q };
  }
  return best?.format ?? 'text';
}
