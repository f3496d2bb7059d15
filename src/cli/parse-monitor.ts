/**
 * `inferencecache monitor`'s command line: its declared flags parsed, the shared ones into the options
 * of each run (as `doctor` reads them), its own checked here.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { splitHostPort } from '../go/hostport.ts';
import { parseDeadline, usageGuard } from './flag-values.ts';
import { parseOptionsOf } from './flags.ts';
import { monitorHelp } from './help.ts';
import { MAX_RESOURCE_SERIES, MONITOR_FLAGS, type MonitorFlag } from './monitor-flags.ts';
import { UsageError, type Command, type DoctorOptions, type ListenAddress } from './options.ts';
import { sharedRunOptions } from './run-options.ts';
import { validHost } from './server-endpoint.ts';

/**
 * The shortest `--interval`. Each run lists the whole install, so an interval under a minute is seldom
 * what an operator wants, but it is theirs to choose (a test runs a hundred runs back to back); the floor
 * only refuses what is surely a slip, such as `0s` or `10ms`, which would keep the API server busy.
 */
export const MIN_INTERVAL_MS = 1_000;

/** `--listen-address`: `host:port` with an optional host; port 0 lets the system choose (tests use it). */
function parseListenAddress(text: string): ListenAddress {
  const bad = (why: string) => new UsageError(`invalid --listen-address ${JSON.stringify(text)}: ${why}`);
  const split = splitHostPort(text);
  if (!split.ok) throw bad('want host:port, such as :8080 or 127.0.0.1:8080');
  const { host, port } = split;
  if (host !== '' && !validHost(host)) throw bad(`${JSON.stringify(host)} is not a host name or IP address`);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw bad(`port ${JSON.stringify(port)} is not a number from 0 to 65535`);
  return { host, port: Number(port) };
}

/** `--resource-series`: a whole number from 0 to {@link MAX_RESOURCE_SERIES}. */
function parseResourceSeries(text: string): number {
  if (!/^\d{1,6}$/.test(text) || Number(text) > MAX_RESOURCE_SERIES) {
    throw new UsageError(`invalid --resource-series ${JSON.stringify(text)}: want a whole number from 0 to ${MAX_RESOURCE_SERIES}`);
  }
  return Number(text);
}

/** `--cluster`: a label value, which any text may be; a line break would only confuse a reader of the series. */
function parseCluster(text: string): string {
  if ([...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    throw new UsageError(`invalid --cluster ${JSON.stringify(text)}: no control characters`);
  return text;
}

/** Parses the arguments after `monitor`, or throws {@link UsageError}. */
export function parseMonitor(args: readonly string[]): Command {
  const { values, positionals } = usageGuard(() =>
    parseArgs({ args: [...args], strict: true, allowPositionals: true, options: parseOptionsOf<MonitorFlag>(MONITOR_FLAGS) }),
  );
  if (values.help) return { kind: 'help', text: monitorHelp() };
  if (positionals.length > 0) throw new UsageError(`monitor takes no arguments, got ${JSON.stringify(positionals[0])}`);
  const intervalMs = parseDeadline('--interval', values.interval);
  if (intervalMs < MIN_INTERVAL_MS) throw new UsageError(`invalid --interval ${JSON.stringify(values.interval)}: the shortest is 1s`);
  const controllerListener = values['probe-controller-listener'];
  if (controllerListener && values['config-only']) {
    throw new UsageError('--probe-controller-listener and --config-only disagree: --config-only probes nothing');
  }
  const run: DoctorOptions = {
    ...sharedRunOptions(values),
    noColor: false,
    files: [],
    covers: [],
    outputThreshold: 'OK',
    showOk: false,
    waitMs: 0,
    quiet: true,
    controllerListener,
    // A monitor's pod keeps running: the termination message is the doctor's last word, which it has not.
    terminationMessagePath: '',
  };
  return {
    kind: 'monitor',
    options: Object.freeze({
      run: Object.freeze(run),
      listen: parseListenAddress(values['listen-address']),
      intervalMs,
      cluster: parseCluster(values.cluster),
      resourceSeries: parseResourceSeries(values['resource-series']),
      once: values.once,
    }),
  };
}
