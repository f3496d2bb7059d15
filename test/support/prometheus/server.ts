/**
 * A real Prometheus (Debian's `prometheus` package) for the tests that scrape the monitor: started on a
 * loopback port with a configuration and rule files the test writes, its data in a folder of its own,
 * and stopped (the process and the folder) by `stop`. Queries go to its HTTP API, as Grafana's would.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, terminate } from '../../../dev/cluster/controlplane.ts';
import { pollUntil } from '../../../dev/poll.ts';
import { prometheusPackageMissing } from './promtool.ts';

/** The skip reason, or '' when `prometheus` runs. Throws under CI, where it must. */
export function prometheusMissing(): string {
  return prometheusPackageMissing('prometheus');
}

/** One sample of an instant query: its labels and value. */
export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

/** An alert as `/api/v1/alerts` lists it. */
export interface Alert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing';
  readonly activeAt: string;
}

/** A scrape target as `/api/v1/targets` lists it. */
export interface Target {
  readonly labels: Readonly<Record<string, string>>;
  readonly scrapeUrl: string;
  readonly health: 'up' | 'down' | 'unknown';
  readonly lastError: string;
}

/** A running Prometheus. */
export interface Prometheus {
  readonly url: string;
  query(expr: string): Promise<Sample[]>;
  alerts(): Promise<Alert[]>;
  targets(): Promise<Target[]>;
  /** Everything it wrote to stderr so far (its log). */
  log(): string;
  stop(): Promise<void>;
}

/** What the test gives: the configuration's `scrape_configs` and the rule files, as YAML text. */
export interface PrometheusSetup {
  /** The `scrape_configs:` list, YAML (indented as a top-level value). */
  readonly scrapeConfigs: string;
  /** Rule files by name. */
  readonly rules: Readonly<Record<string, string>>;
  /** Scrape and rule evaluation interval. */
  readonly interval: string;
}

async function api<T>(url: string, path: string): Promise<T> {
  const res = await fetch(new URL(path, url), { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${path}: ${body.error ?? res.status}`);
  return body.data;
}

/** Starts Prometheus and waits until it is ready. */
export async function startPrometheus(setup: PrometheusSetup): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'icd-prometheus-'));
  for (const [name, text] of Object.entries(setup.rules)) writeFileSync(join(dir, name), text);
  const config = [
    'global:',
    `  scrape_interval: ${setup.interval}`,
    `  evaluation_interval: ${setup.interval}`,
    'rule_files:',
    ...Object.keys(setup.rules).map((name) => `  - ${join(dir, name)}`),
    'scrape_configs:',
    setup.scrapeConfigs,
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const [port] = await freePorts(1);
  const url = `http://127.0.0.1:${String(port)}`;
  const child = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
      '--storage.tsdb.retention.time=1h',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-64_000)));
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) await terminate(child.pid, 10_000, 5_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pollUntil(
      'Prometheus ready',
      { timeoutMs: 60_000, intervalMs: 250, stopIf: () => (child.exitCode === null ? undefined : `exited: ${stderr}`) },
      async () =>
        (await fetch(`${url}/-/ready`).then(
          (r) => r.status === 200,
          () => false,
        )) || 'not yet',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    query: async (expr) => {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        url,
        `/api/v1/query?query=${encodeURIComponent(expr)}`,
      );
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    alerts: async () => (await api<{ alerts: Alert[] }>(url, '/api/v1/alerts')).alerts,
    targets: async () => (await api<{ activeTargets: Target[] }>(url, '/api/v1/targets')).activeTargets,
    log: () => stderr,
    stop,
  };
}
