/**
 * Counters and histograms that live as long as the process: each keeps one series per distinct label
 * set it was given, so its label values must come from a closed set (an exit code, a probe's name),
 * never from the cluster.
 *
 * @module
 */

import type { HistogramSeries, Labels, MetricFamily, Sample } from './exposition.ts';

/** The key of a label set: its pairs in name order. */
function keyOf(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A counter family: adds only, one series per label set. */
export class Counter {
  private readonly series = new Map<string, { labels: Labels; value: number }>();
  readonly name: string;
  readonly help: string;

  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  /** Adds `by` (at least 0) to the series of `labels`. */
  add(labels: Labels, by = 1): void {
    if (!(by >= 0)) throw new Error(`a counter only goes up (${this.name} += ${by})`);
    const key = keyOf(labels);
    const found = this.series.get(key);
    if (found === undefined) this.series.set(key, { labels, value: by });
    else found.value += by;
  }

  /** Makes the series of `labels` exist at 0, so that a scrape shows it before it first counts. */
  touch(labels: Labels): void {
    this.add(labels, 0);
  }

  family(): MetricFamily {
    const samples: Sample[] = [...this.series.values()].map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: 'counter', samples };
  }
}

/** A histogram family over fixed bounds, one series per label set. */
export class Histogram {
  private readonly series = new Map<string, { labels: Labels; buckets: number[]; count: number; sum: number }>();
  readonly name: string;
  readonly help: string;
  /** Upper bounds of the buckets, ascending, without +Inf. */
  readonly bounds: readonly number[];

  constructor(name: string, help: string, bounds: readonly number[]) {
    this.name = name;
    this.help = help;
    this.bounds = bounds;
    if (bounds.some((b, i) => i > 0 && !(b > (bounds[i - 1] ?? -Infinity)))) throw new Error(`${name}: bounds must ascend`);
  }

  /** Records one observation of `value` in the series of `labels`. */
  observe(labels: Labels, value: number): void {
    const key = keyOf(labels);
    let found = this.series.get(key);
    if (found === undefined) {
      found = { labels, buckets: this.bounds.map(() => 0), count: 0, sum: 0 };
      this.series.set(key, found);
    }
    const at = this.bounds.findIndex((bound) => value <= bound);
    if (at >= 0) found.buckets[at] = (found.buckets[at] ?? 0) + 1;
    found.count++;
    found.sum += value;
  }

  family(): MetricFamily {
    const series: HistogramSeries[] = [...this.series.values()].map(({ labels, buckets, count, sum }) => {
      let running = 0;
      const cumulative = buckets.map((n) => (running += n));
      return { labels, cumulative, count, sum };
    });
    return { name: this.name, help: this.help, type: 'histogram', bounds: this.bounds, series };
  }
}
