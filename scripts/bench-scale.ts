// `npm run bench:scale`: the doctor against the scale scenario of docs/architecture.md#bars, side by side with two
// bare floors (the same list calls, paginated, nothing else: one parses JSON, one reads protobuf and
// only counts items), in a control plane of its own.
//
//   npm run bench:scale                      # a tenth of the scenario, then the full one, 3 rounds each
//   npm run bench:scale -- --size 5x         # or tenth, full, envelope, both (tenth and full), all; --rounds N
//   npm run bench:scale -- --engine-share 80 --injection annotation:3,event:1,none:1
//                                            # the scenario's shape: the percent of pods that are engine
//                                            # pods (50), and how they show injection (annotation:9,none:1)
//   npm run bench:scale -- --size 5x --keep ~/.cache/icd-scale
//                                            # populate once, then reuse the control plane's etcd data
//   npm run bench:scale -- --size full --profile DIR
//                                            # and one more `-o json` run with a CPU profile in DIR,
//                                            # summarised by where its time went
//   npm run bench:scale -- --runs floor,protobuf,json
//                                            # only these runs (floor, protobuf, json, human, bare, baseline)
//   npm run bench:scale -- --baseline DIR --reports OUT
//                                            # also run the bundle of an earlier build (DIR holds its
//                                            # inferencecache.mjs) and require its reports to be the
//                                            # doctor's byte for byte; write each run's reports to OUT
//
// For each run it measures: wall time, CPU (user + system), peak RSS, the requests the API server
// logged for the run's own identity (audit log), the API server's own CPU time while it ran (its
// process's user + system time, before and after), and the bytes the API server sent (a counting TCP
// forwarder in front of it). The floors, the doctor with `-o json` and `-o human` as the image runs it
// (with the Node flags and environment of scripts/bundle/node-flags.ts), and `-o json` under a bare `node` (as from a
// workstation) run interleaved, round by round; the figures are medians, each also as a ratio to the
// JSON floor's and the protobuf floor's. Then it says which bars the size meets (docs/performance.md).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { IMAGE_ENV, IMAGE_NODE_FLAGS } from './bundle/node-flags.ts';
import { planRun } from '../src/checks/registry.ts';
import { collectionPath } from '../src/cluster/kinds/access.ts';
import { KINDS } from '../src/cluster/kinds/kinds.ts';
import { listsOf } from '../src/cluster/state/reads.ts';
import { completedRequestsBy } from '../dev/cluster/audit.ts';
import { BUNDLE, ensureBundle } from '../dev/bundle.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';
import { processCpuMs } from '../dev/proc-stats.ts';
import { missingBinaries, resolveBinaries, startControlPlane, type ControlPlane } from '../dev/cluster/controlplane.ts';
import { installCrds } from '../dev/cluster/manifests.ts';
import { doctorIdentity, type Identity } from '../dev/cluster/identity.ts';
import {
  BENCH_SHAPE,
  ENVELOPE,
  FIVE_X,
  FULL,
  KEPT_FOR_MS,
  buildScenario,
  engineCount,
  expectedCounts,
  formatMix,
  parseMix,
  scaled,
  type ScaleShape,
  type ScaleSize,
} from '../dev/cluster/scale-scenario.ts';
import { chartMemoryLimitMiB } from './bench/chart-memory.ts';

const PRELOAD = join(PROJECT_ROOT, 'scripts/bench/usage-preload.mjs');
const FLOOR = join(PROJECT_ROOT, 'scripts/bench/floor.mjs');
/** The floor lists what the doctor lists: the collections of a `--config-only` run's plan, cluster-wide. */
const FLOOR_LISTS = listsOf(planRun({ configOnly: true }).reads).map((name) => collectionPath(KINDS[name].access, ''));

const FLOOR_RUN = 'floor';
const PROTOBUF_FLOOR_RUN = 'floor, protobuf';
const JSON_RUN = 'doctor -o json';
const HUMAN_RUN = 'doctor -o human';
const BARE_RUN = 'json, bare node';
const BASELINE_RUN = 'baseline -o json';

/**
 * The bars of one size: peak RSS (image runs, bare run), CPU and wall as ratios to the JSON floor's.
 * `rssBelow` says whether the RSS bar is strict (< rather than ≤).
 */
interface Bars {
  readonly imageRssMiB: number;
  readonly bareRssMiB?: number;
  readonly rssBelow?: boolean;
  readonly cpu?: number;
  readonly wall?: number;
}

/**
 * The scale bars (issues 28 and 42), whatever the scenario's shape: at full size and at 5×; at the
 * envelope, the run completes inside the chart's default memory limit.
 */
const BARS = new Map<ScaleSize, Bars>([
  [FULL, { imageRssMiB: 150, bareRssMiB: 150, rssBelow: true, cpu: 1.3, wall: 1.0 }],
  [FIVE_X, { imageRssMiB: 160, cpu: 1.2, wall: 0.9 }],
  [ENVELOPE, { imageRssMiB: chartMemoryLimitMiB(), rssBelow: true }],
]);

/** Each bar of `size` met or missed, with the figure, and its ratio to the protobuf floor's. */
function bars(size: ScaleSize, rows: readonly [string, Figures][]): string[] {
  const bar = BARS.get(size);
  const of = (name: string) => rows.find(([n]) => n === name)?.[1];
  const floor = of(FLOOR_RUN);
  const protobuf = of(PROTOBUF_FLOOR_RUN);
  if (bar === undefined || floor === undefined) return [];
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const also = (value: number, base: number | undefined) =>
    base === undefined || base === 0 ? '' : ` (${(value / base).toFixed(2)}× the protobuf floor's)`;
  const lines = ['bars:'];
  for (const name of [JSON_RUN, HUMAN_RUN, BARE_RUN]) {
    const f = of(name);
    if (f === undefined) continue;
    const rssBar = name === BARE_RUN ? bar.bareRssMiB : bar.imageRssMiB;
    const rssOk = rssBar !== undefined && (bar.rssBelow === true ? f.rssMiB < rssBar : f.rssMiB <= rssBar);
    const parts = [
      ...(rssBar === undefined
        ? []
        : [
            `peak RSS ${f.rssMiB.toFixed(1)} MiB ${bar.rssBelow === true ? '<' : '≤'} ${rssBar} MiB${also(f.rssMiB, protobuf?.rssMiB)}: ${verdict(rssOk)}`,
          ]),
      ...(name === BARE_RUN
        ? []
        : [
            ...(bar.wall === undefined
              ? []
              : [
                  `wall ${(f.wallMs / floor.wallMs).toFixed(2)}× ≤ ${bar.wall}×${also(f.wallMs, protobuf?.wallMs)}: ${verdict(f.wallMs <= bar.wall * floor.wallMs)}`,
                ]),
            ...(bar.cpu === undefined
              ? []
              : [
                  `CPU ${(f.cpuMs / floor.cpuMs).toFixed(2)}× ≤ ${bar.cpu}×${also(f.cpuMs, protobuf?.cpuMs)}: ${verdict(f.cpuMs <= bar.cpu * floor.cpuMs)}`,
                ]),
            `requests ${f.requests} = ${floor.requests}: ${verdict(f.requests === floor.requests)}`,
            `API server CPU ${f.apiCpuMs.toFixed(0)} ≤ ${floor.apiCpuMs.toFixed(0)} ms: ${verdict(f.apiCpuMs <= floor.apiCpuMs)}`,
          ]),
    ];
    if (parts.length > 0) lines.push(`  ${name}: ${parts.join('; ')}`);
  }
  return lines;
}

interface Figures {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly rssMiB: number;
  readonly requests: number;
  readonly bytes: number;
  /** The API server's process CPU time (user + system) while the run ran. */
  readonly apiCpuMs: number;
}

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** A TCP forwarder to `target` that counts the bytes coming back. */
async function byteCounter(target: URL): Promise<{ port: number; take: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    upstream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    take: () => {
      const n = bytes;
      bytes = 0;
      return n;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Runs `node [preload] args`, discarding its output, and returns its figures but requests and bytes. */
function measure(
  args: readonly string[],
  dir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<{ wallMs: number; cpuMs: number; rssMiB: number; code: number | null; stdout: string }> {
  const usageFile = join(dir, `usage-${Math.random().toString(36).slice(2)}.json`);
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, ...args], {
      env: { ...env, PATH: process.env['PATH'] ?? '', BENCH_USAGE_FILE: usageFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { userMs: number; systemMs: number; peakRssKiB: number };
      done({ wallMs, cpuMs: usage.userMs + usage.systemMs, rssMiB: usage.peakRssKiB / 1024, code, stdout });
    });
  });
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

function summarise(runs: readonly Figures[]): Figures {
  return {
    wallMs: median(runs.map((r) => r.wallMs)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    rssMiB: median(runs.map((r) => r.rssMiB)),
    requests: median(runs.map((r) => r.requests)),
    bytes: median(runs.map((r) => r.bytes)),
    apiCpuMs: median(runs.map((r) => r.apiCpuMs)),
  };
}

/** The scenario in words: its size and its shape. */
function describeScenario(label: string, size: ScaleSize, shape: ScaleShape): string {
  return [
    `${label}: ${size.namespaces} namespaces, ${size.backends} CacheBackends, ${size.pods} pods`,
    `(${engineCount(size, shape)} engine pods, ${shape.enginePercent}%, injected ${formatMix(shape.injection)})`,
    ...(size.nodes > 0 ? [`over ${size.nodes} Nodes`] : []),
    `, ${size.tenants} CacheTenants, ${size.policies} CachePolicies, ${size.events} Events`,
  ]
    .join(' ')
    .replace(' ,', ',');
}

/** The figures of every run, each as a ratio to the JSON floor's and (wall, CPU, RSS) to the protobuf floor's. */
function table(rows: readonly [string, Figures][]): string {
  const floor = rows.find(([n]) => n === FLOOR_RUN)?.[1];
  const protobuf = rows.find(([n]) => n === PROTOBUF_FLOOR_RUN)?.[1];
  const ratio = (value: number, base: number | undefined) => (base === undefined || base === 0 ? '' : `${(value / base).toFixed(2)}×`);
  const cell = (value: number, base: number | undefined, unit: string, digits = 0, second?: number) => {
    const ratios = [ratio(value, base), ...(second === undefined ? [] : [ratio(value, second)])].filter((r) => r !== '');
    return `${value.toFixed(digits)}${unit}${ratios.length === 0 ? '' : ` (${ratios.join(' / ')})`}`;
  };
  const lines = [
    '(ratios: to the JSON floor / to the protobuf floor)',
    `${'run'.padEnd(18)}${'wall (median)'.padEnd(26)}${'CPU'.padEnd(26)}${'peak RSS'.padEnd(28)}${'requests'.padEnd(16)}${'API server CPU'.padEnd(20)}bytes read`,
  ];
  for (const [name, f] of rows) {
    lines.push(
      `${name.padEnd(18)}${cell(f.wallMs, floor?.wallMs, ' ms', 0, protobuf?.wallMs).padEnd(26)}${cell(f.cpuMs, floor?.cpuMs, ' ms', 0, protobuf?.cpuMs).padEnd(26)}${cell(f.rssMiB, floor?.rssMiB, ' MiB', 1, protobuf?.rssMiB).padEnd(28)}${cell(f.requests, floor?.requests, '').padEnd(16)}${cell(f.apiCpuMs, floor?.apiCpuMs, ' ms').padEnd(20)}${cell(f.bytes / 1024 / 1024, (floor?.bytes ?? 0) / 1024 / 1024, ' MiB', 1)}`,
    );
  }
  return lines.join('\n');
}

/** The API server keeps Events as long as a kept scenario judges the same. */
const API_SERVER_ARGS = [`--event-ttl=${KEPT_FOR_MS / 3_600_000}h`];

/** A scenario kept under `keep` is reused while this much of its time is left. */
const REUSE_MARGIN_MS = 2 * 3_600_000;

/**
 * A control plane holding the scenario of `size`: built anew, or, under `keep`, the etcd data of an
 * earlier build of the same scenario (same size, same scenario code, CRDs and binaries) while its
 * timestamps still judge the same; otherwise built there and marked.
 */
async function scenarioControlPlane(
  label: string,
  size: ScaleSize,
  shape: ScaleShape,
  keep: string | undefined,
): Promise<{ cp: ControlPlane; kc: KubeConfig }> {
  const build = async (cp: ControlPlane) => {
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    await installCrds(kc);
    await buildScenario(
      { server: cp.server, caFile: cp.caFile, token: cp.adminToken },
      size,
      (t) => process.stderr.write(`  ${label} ${t}\n`),
      32,
      shape,
    );
    return kc;
  };
  if (keep === undefined) {
    const cp = await startControlPlane({ extraApiServerArgs: API_SERVER_ARGS });
    return { cp, kc: await build(cp) };
  }
  const key = createHash('sha256')
    .update(JSON.stringify(size))
    .update(JSON.stringify(shape))
    .update(readFileSync(join(PROJECT_ROOT, 'dev/cluster/scale-scenario.ts')))
    .update(JSON.stringify(resolveBinaries()))
    .digest('hex')
    .slice(0, 12);
  const prefix = `${label.replace(/\W+/g, '-')}-${shape.enginePercent}-${formatMix(shape.injection).replace(/\W+/g, '-')}-`;
  const dataDir = join(keep, `${prefix}${key}`);
  const marker = `${dataDir}.built`;
  const builtAt = existsSync(marker) ? Date.parse(readFileSync(marker, 'utf8')) : Number.NaN;
  const reuse = existsSync(dataDir) && Date.now() - builtAt < KEPT_FOR_MS - REUSE_MARGIN_MS;
  if (!reuse) {
    // Every earlier build of this size goes: a changed scenario, or one too old to judge the same.
    mkdirSync(keep, { recursive: true });
    for (const entry of readdirSync(keep)) if (entry.startsWith(prefix)) rmSync(join(keep, entry), { recursive: true, force: true });
  }
  const cp = await startControlPlane({ etcdDataDir: dataDir, extraApiServerArgs: API_SERVER_ARGS });
  if (reuse) {
    process.stderr.write(`  ${label}: reusing the scenario built ${new Date(builtAt).toISOString()} in ${dataDir}\n`);
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    return { cp, kc };
  }
  const started = new Date().toISOString();
  const kc = await build(cp);
  writeFileSync(marker, started);
  return { cp, kc };
}

/** The functions a CPU profile spent the most time in (self time, the program's samples only), one line each. */
function profileSummary(file: string, top = 14): string[] {
  interface ProfileNode {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) return;
    const where =
      frame.url === ''
        ? ''
        : ` (${frame.url.slice(frame.url.lastIndexOf('/') + 1)}${frame.functionName === '' ? `:${frame.lineNumber + 1}` : ''})`;
    const key = `${frame.functionName === '' ? 'anonymous' : frame.functionName}${where}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...self].filter(([k]) => k !== '(idle)').reduce((sum, [, ms]) => sum + ms, 0);
  const lines = [...self]
    .filter(([k]) => k !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, ms]) => `    ${ms.toFixed(0).padStart(6)} ms  ${k}`);
  return [`  where the doctor's time went (-o json, the image's flags; ${total.toFixed(0)} ms of samples, self time):`, ...lines];
}

/** What one size of the bench runs with, beside the size itself. */
interface BenchOptions {
  readonly shape: ScaleShape;
  readonly rounds: number;
  readonly keep: string | undefined;
  readonly profile: { readonly dir: string; readonly name: string } | undefined;
  /** The entry of an earlier build's bundle, run beside the doctor; its reports must be the doctor's. */
  readonly baseline: string | undefined;
  /** Where each run's reports of the first round are written, `<size>-<run>.txt`. */
  readonly reports: string | undefined;
  /** The runs to make, by their `--runs` names; all when undefined. */
  readonly runs: ReadonlySet<string> | undefined;
}

/** The runs by their `--runs` names. */
const RUN_NAMES: Readonly<Record<string, string>> = {
  floor: FLOOR_RUN,
  protobuf: PROTOBUF_FLOOR_RUN,
  json: JSON_RUN,
  human: HUMAN_RUN,
  bare: BARE_RUN,
  baseline: BASELINE_RUN,
};

async function benchSize(flag: string, label: string, size: ScaleSize, options: BenchOptions): Promise<string> {
  const { shape, rounds, keep, profile, baseline, reports, runs } = options;
  const dir = mkdtempSync(join(tmpdir(), 'icd-bench-scale-'));
  const { cp, kc } = await scenarioControlPlane(label, size, shape, keep);
  const counter = await byteCounter(new URL(cp.server));
  try {
    const via = `https://127.0.0.1:${counter.port}`;
    const names = [FLOOR_RUN, PROTOBUF_FLOOR_RUN, JSON_RUN, HUMAN_RUN, BARE_RUN, ...(baseline === undefined ? [] : [BASELINE_RUN])].filter(
      (name) => runs === undefined || runs.has(name),
    );
    const runsOf: Record<string, Figures[]> = Object.fromEntries(names.map((name) => [name, []]));
    const firstOutput = new Map<string, string>();
    // Every run's identity first: each is a ServiceAccount, and every run must list the same objects.
    const identities = new Map<string, Identity>();
    for (let round = 1; round <= rounds; round++)
      for (const name of names) {
        const id = await doctorIdentity(kc, {
          namespace: 'default',
          name: `bench-${round}-${name.replace(/\W+/g, '-')}`,
          server: via,
          caFile: cp.caFile,
        });
        identities.set(`${round} ${name}`, id);
      }
    for (let round = 1; round <= rounds; round++) {
      for (const name of names) {
        const id = identities.get(`${round} ${name}`);
        if (id === undefined) throw new Error(`no identity for round ${round} ${name}`);
        const tokenFile = join(dir, `${round}-token`);
        writeFileSync(tokenFile, id.token);
        counter.take();
        const apiCpuBefore = processCpuMs(cp.pids.apiserver);
        const doctor = ['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', name === HUMAN_RUN ? 'human' : 'json'];
        const args =
          name === FLOOR_RUN || name === PROTOBUF_FLOOR_RUN
            ? [FLOOR, name === FLOOR_RUN ? 'json' : 'protobuf', via, cp.caFile, tokenFile, ...FLOOR_LISTS]
            : [...(name === BARE_RUN ? [] : IMAGE_NODE_FLAGS), name === BASELINE_RUN ? (baseline ?? '') : BUNDLE, ...doctor];
        const run = await measure(args, dir, name === BARE_RUN || name.startsWith(FLOOR_RUN) ? {} : IMAGE_ENV);
        const apiCpuMs = processCpuMs(cp.pids.apiserver) - apiCpuBefore;
        const bytes = counter.take();
        const requests = completedRequestsBy(cp.auditLogPath, new Set([id.username])).length;
        if (name === JSON_RUN || name === BARE_RUN) checkCounts(run.stdout, size, shape);
        if (!firstOutput.has(name)) firstOutput.set(name, run.stdout);
        runsOf[name]?.push({ wallMs: run.wallMs, cpuMs: run.cpuMs, rssMiB: run.rssMiB, requests, bytes, apiCpuMs });
        process.stderr.write(
          `  ${label} round ${round} ${name}: ${run.wallMs.toFixed(0)} ms, ${run.rssMiB.toFixed(1)} MiB, exit ${run.code ?? 'signal'}\n`,
        );
      }
    }
    const same = sameOutputs(firstOutput);
    if (reports !== undefined) {
      mkdirSync(reports, { recursive: true });
      for (const [name, stdout] of firstOutput) writeFileSync(join(reports, `${flag}-${name.replace(/\W+/g, '-')}.txt`), stdout);
    }
    const rows = Object.entries(runsOf).map(([name, figures]): [string, Figures] => [name, summarise(figures)]);
    const profiled: string[] = [];
    if (profile !== undefined) {
      const into = join(resolve(profile.dir), profile.name);
      mkdirSync(into, { recursive: true });
      const id = await doctorIdentity(kc, { namespace: 'default', name: 'bench-profile', server: via, caFile: cp.caFile });
      const doctor = ['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', 'json'];
      await measure([...IMAGE_NODE_FLAGS, '--cpu-prof', '--cpu-prof-dir', into, BUNDLE, ...doctor], dir, IMAGE_ENV);
      const written = readdirSync(into)
        .filter((f) => f.endsWith('.cpuprofile'))
        .sort()
        .at(-1);
      if (written !== undefined) profiled.push(...profileSummary(join(into, written)), `  profile: ${join(into, written)}`);
    }
    return [describeScenario(label, size, shape), table(rows), ...bars(size, rows), ...same, ...profiled].join('\n');
  } finally {
    await counter.close();
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The outputs that must be equal, and are: both floors counted the same objects; the JSON reports of
 * the image's flags, a bare node and the baseline are the same bytes. Throws when they are not.
 */
function sameOutputs(first: ReadonlyMap<string, string>): string[] {
  const pairs: [string, string][] = [
    [FLOOR_RUN, PROTOBUF_FLOOR_RUN],
    [JSON_RUN, BARE_RUN],
    ...(first.has(BASELINE_RUN) ? [[JSON_RUN, BASELINE_RUN] as [string, string]] : []),
  ];
  const lines: string[] = [];
  for (const [a, b] of pairs) {
    if (!first.has(a) || !first.has(b)) continue;
    const x = first.get(a) ?? '';
    const y = first.get(b) ?? '';
    if (x !== y) throw new Error(`the outputs of ${a} and ${b} differ (${x.length} and ${y.length} bytes)`);
    lines.push(
      a === FLOOR_RUN ? `both floors read ${x.trim()}` : `the reports of ${a} and ${b} are the same ${Buffer.byteLength(x)} bytes`,
    );
  }
  return lines;
}

/** The JSON report holds the findings the scenario must produce, code by code. */
function checkCounts(stdout: string, size: ScaleSize, shape: ScaleShape): void {
  const report = JSON.parse(stdout) as { findings: { code: string }[] };
  const got: Record<string, number> = {};
  for (const f of report.findings) got[f.code] = (got[f.code] ?? 0) + 1;
  const want = Object.fromEntries(Object.entries(expectedCounts(size, shape)).filter(([, n]) => n > 0));
  if (JSON.stringify(Object.entries(got).sort()) !== JSON.stringify(Object.entries(want).sort())) {
    throw new Error(`the report's findings per code ${JSON.stringify(got)} differ from the scenario's ${JSON.stringify(want)}`);
  }
}

async function main(): Promise<void> {
  const which = argValue('--size', 'both');
  const rounds = Number(argValue('--rounds', '3'));
  const optional = (name: string) => {
    const value = argValue(name, '');
    return value === '' ? undefined : value;
  };
  const enginePercent = Number(argValue('--engine-share', String(BENCH_SHAPE.enginePercent)));
  if (!Number.isInteger(enginePercent) || enginePercent < 0 || enginePercent > 100)
    throw new Error(`--engine-share ${argValue('--engine-share', '')}: expected a whole percent from 0 to 100`);
  const mix = optional('--injection');
  const shape: ScaleShape = { enginePercent, injection: mix === undefined ? BENCH_SHAPE.injection : parseMix(mix) };
  const profile = optional('--profile');
  const baselineDir = optional('--baseline');
  const baseline = baselineDir === undefined ? undefined : join(resolve(baselineDir), 'inferencecache.mjs');
  if (baseline !== undefined && !existsSync(baseline)) throw new Error(`--baseline ${baselineDir ?? ''}: no inferencecache.mjs there`);
  const reports = optional('--reports');
  const runsArg = optional('--runs');
  const runs = runsArg === undefined ? undefined : new Set(runsArg.split(',').map((name) => RUN_NAMES[name.trim()] ?? ''));
  if (runs?.has('') === true) throw new Error(`--runs ${runsArg ?? ''}: expected names among ${Object.keys(RUN_NAMES).join(', ')}`);
  if (runs !== undefined && !runs.has(FLOOR_RUN)) throw new Error('--runs: the JSON floor is what every ratio is to; name floor');
  ensureBundle();
  if (missingBinaries(resolveBinaries()).length > 0)
    throw new Error('etcd and kube-apiserver are missing: run `npm run tools:build` first');
  const sizes: [string, string, ScaleSize][] = [
    ['tenth', 'a tenth', scaled(0.1)],
    ['full', 'full', FULL],
    ['5x', '5×', FIVE_X],
    ['envelope', 'the envelope', ENVELOPE],
  ];
  const picks: Record<string, readonly string[]> = { both: ['tenth', 'full'], all: ['tenth', 'full', '5x', 'envelope'] };
  const wanted = picks[which] ?? [which];
  const chosen = sizes.filter(([flag]) => wanted.includes(flag));
  if (chosen.length === 0) throw new Error(`--size ${which}: expected tenth, full, 5x, envelope, both or all`);
  const out = [
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}; ${new Date().toISOString().slice(0, 10)}`,
  ];
  for (const [flag, label, size] of chosen) {
    const options: BenchOptions = {
      shape,
      rounds,
      keep: optional('--keep'),
      profile: profile === undefined ? undefined : { dir: profile, name: flag },
      baseline,
      reports,
      runs,
    };
    out.push('', await benchSize(flag, label, size, options));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:scale: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
