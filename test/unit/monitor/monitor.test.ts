/**
 * The monitor's schedule and port, with runs that are stand-ins (what a run does is the doctor's, tested
 * elsewhere): the interval drawn within its jitter, runs never overlapping, the last completed run
 * served, a run that cannot start counted, an endless run given up when told to stop, and the port's
 * paths and methods.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MonitorOptions } from '../../../src/cli/options.ts';
import type { RunObserver } from '../../../src/doctor/environment.ts';
import { JITTER, nextStartAfter, runMonitor, type MonitorEnvironment, type RunOutcome } from '../../../src/monitor/monitor.ts';
import { makeReport } from '../../../src/report/finding.ts';
import { parseCommandLine } from '../../../src/cli/parse.ts';
import type { Endpoint } from '../../../src/monitor/http-endpoint.ts';
import { findingsOf } from '../../support/findings.ts';

const sv = findingsOf('ServerReachability');

/** The options of `monitor` with these flags, listening on a port the system chooses. */
function monitorOptions(...flags: string[]): MonitorOptions {
  const command = parseCommandLine(['monitor', '--listen-address', '127.0.0.1:0', ...flags]);
  if (command.kind !== 'monitor') throw new Error(`not a monitor command: ${command.kind}`);
  return command.options;
}

/** Options with an interval too short for the command line, so that a test sees several runs. */
function quick(intervalMs: number, ...flags: string[]): MonitorOptions {
  return { ...monitorOptions(...flags), intervalMs };
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

/** Starts the monitor with `run`; resolves once it serves, with its address and how it ended. */
async function start(options: MonitorOptions, run: MonitorEnvironment['run']) {
  const stop = new AbortController();
  stops.push(stop);
  const log: string[] = [];
  let serving: (endpoint: Endpoint) => void = () => undefined;
  const served = new Promise<Endpoint>((resolve) => (serving = resolve));
  const done = runMonitor(options, {
    run,
    clock: () => new Date(),
    random: Math.random,
    interrupt: stop.signal,
    log: (line) => {
      log.push(line);
      return Promise.resolve();
    },
    serving: (endpoint) => serving(endpoint),
    version: '1.0.0',
    commit: 'abc',
    active: [],
  });
  const endpoint = await Promise.race([served, done.then(() => Promise.reject(new Error(`ended before serving: ${log.join('; ')}`)))]);
  const url = (path: string) => `http://127.0.0.1:${endpoint.address.port}${path}`;
  return { stop, done, log, url };
}

/** Polls `check` every 20 ms until it holds (the test's own timeout bounds the wait). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

const healthyRun = (): Promise<RunOutcome> =>
  Promise.resolve({ kind: 'report', result: { report: makeReport([sv('SV003', 'host:9090', 'SERVING')]), warnings: [] } });

describe('the schedule', () => {
  it('draws each interval within the jitter either way', () => {
    expect(nextStartAfter(60_000, () => 0)).toBe(60_000 * (1 - JITTER));
    expect(nextStartAfter(60_000, () => 0.5)).toBe(60_000);
    expect(nextStartAfter(60_000, () => 0.999_999)).toBeLessThanOrEqual(60_000 * (1 + JITTER));
  });

  it('never overlaps two runs, even when each outlasts the interval', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const slow = async (): Promise<RunOutcome> => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 60));
      running--;
      runs++;
      return healthyRun();
    };
    const m = await start(quick(10), slow);
    await until(() => runs >= 5);
    m.stop.abort();
    await m.done;
    expect(most).toBe(1);
  });

  it('serves the last completed run, and counts the API requests and probes it was told of', async () => {
    let n = 0;
    const run = (observer: RunObserver): Promise<RunOutcome> => {
      observer.api(7, 1);
      observer.probe('grpc_health', 0.002);
      n++;
      const status = n === 1 ? sv('SV002', 'host:9090', 'NOT_SERVING') : sv('SV003', 'host:9090', 'SERVING');
      return Promise.resolve({ kind: 'report', result: { report: makeReport([status]), warnings: ['a warning of the run'] } });
    };
    const m = await start(quick(60_000, '--cluster', 'east-1'), run);
    await until(async () => (await fetch(m.url('/readyz'))).status === 200);
    const text = await (await fetch(m.url('/metrics'))).text();
    expect(text).toContain('inferencecache_doctor_findings{cluster="east-1",check="ServerReachability",code="SV002",status="FAIL"} 1\n');
    expect(text).toContain('inferencecache_doctor_last_run_exit_code{cluster="east-1"} 2\n');
    expect(text).toContain('inferencecache_doctor_api_requests_total{cluster="east-1"} 7\n');
    expect(text).toContain('inferencecache_doctor_api_request_errors_total{cluster="east-1"} 1\n');
    expect(text).toContain('inferencecache_doctor_probe_duration_seconds_count{cluster="east-1",probe="grpc_health"} 1\n');
    expect(text).toContain('inferencecache_doctor_runs_total{cluster="east-1",exit_code="2"} 1\n');
    const om = await fetch(m.url('/metrics'), { headers: { accept: 'application/openmetrics-text;version=1.0.0' } });
    expect(om.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect((await om.text()).endsWith('# EOF\n')).toBe(true);
    expect(m.log).toContain('monitor: run 1: warning: a warning of the run');
    expect(m.log.some((line) => /^monitor: run 1: exit 2 \(FAIL 1, WARN 0, INFO 0, OK 0\)/.test(line))).toBe(true);
    m.stop.abort();
    await m.done;
  });

  it('a run that cannot start is counted (exit code 3) and logged; /readyz waits for one that completes', async () => {
    let runs = 0;
    const m = await start(quick(10), () => {
      runs++;
      return Promise.resolve({ kind: 'error', error: 'no kubeconfig found' });
    });
    await until(() => runs >= 2);
    const text = await (await fetch(m.url('/metrics'))).text();
    expect(text).toMatch(/inferencecache_doctor_runs_total\{exit_code="3"\} [2-9]/);
    expect(text).not.toContain('inferencecache_doctor_findings');
    expect((await fetch(m.url('/readyz'))).status).toBe(503);
    expect((await fetch(m.url('/healthz'))).status).toBe(200);
    expect(m.log).toContain('monitor: run 1 could not run: no kubeconfig found');
    m.stop.abort();
    await m.done;
  });

  it('told to stop during a run that never ends: stops serving and returns all the same', async () => {
    let started = false;
    const m = await start(quick(10), () => {
      started = true;
      return new Promise<RunOutcome>(() => undefined);
    });
    await until(() => started);
    m.stop.abort();
    await m.done;
    await expect(fetch(m.url('/healthz'))).rejects.toThrow();
    expect(m.log.at(-1)).toMatch(/^monitor: stopped/);
  });
});

describe('the port', () => {
  it('answers GET and HEAD on its three paths, 404 elsewhere, 405 to other methods', async () => {
    const m = await start(quick(60_000), healthyRun);
    await until(async () => (await fetch(m.url('/readyz'))).status === 200);
    expect((await fetch(m.url('/healthz'))).status).toBe(200);
    const head = await fetch(m.url('/metrics'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(m.url('/metrics?x=1'))).status).toBe(200);
    expect((await fetch(m.url('/'))).status).toBe(404);
    expect((await fetch(m.url('/metricsx'))).status).toBe(404);
    const post = await fetch(m.url('/metrics'), { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    m.stop.abort();
    await m.done;
  });

  it('a port already taken ends the monitor before any run, saying which', async () => {
    const first = await start(quick(60_000), healthyRun);
    const port = new URL(first.url('/')).port;
    const taken = { ...quick(60_000), listen: { host: '127.0.0.1', port: Number(port) } };
    let ran = false;
    const stop = new AbortController();
    stops.push(stop);
    const second = runMonitor(taken, {
      run: () => {
        ran = true;
        return healthyRun();
      },
      clock: () => new Date(),
      random: Math.random,
      interrupt: stop.signal,
      log: () => Promise.resolve(),
      version: '1',
      commit: 'x',
      active: [],
    });
    await expect(second).rejects.toThrow(new RegExp(`cannot listen on 127.0.0.1:${port}: .*EADDRINUSE`));
    expect(ran).toBe(false);
    first.stop.abort();
    await first.done;
  });
});
