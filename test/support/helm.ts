// Helm for the chart tests: the pinned Helm 3 and Helm 4 binaries (built by hack/build-tools.sh,
// located by hack/bin-dir.sh), `helm template` and `helm lint` on chart/, and the rendered manifests
// parsed with the yaml package. Suites skip when the binaries are missing, except under CI=true.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { collectProcess } from '../../dev/process.ts';
import type { BundleRun } from './bundle.ts';
import type { JsonReport } from './json-report.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import type { KubeObject } from '../../dev/cluster/manifests.ts';
import { parseReport } from './report-schema.ts';

/** The chart under test. */
export const CHART_DIR = join(PROJECT_ROOT, 'chart');

/** One Helm major: its label for test names, its binary, and why it cannot run (empty when it can). */
export interface HelmBinary {
  readonly name: 'Helm 3' | 'Helm 4';
  readonly bin: string;
  readonly missing: string;
}

/** What hack/bin-dir.sh --env prints, as a map. */
function binDirEnv(): Record<string, string> {
  const out = execFileSync('bash', [join(PROJECT_ROOT, 'hack/bin-dir.sh'), '--env'], { encoding: 'utf8' });
  const vars: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) vars[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
  return vars;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The pinned Helm 3 and Helm 4 binaries, each with the reason it is unusable, if any. */
export function helmBinaries(): readonly HelmBinary[] {
  const env = binDirEnv();
  const one = (name: HelmBinary['name'], key: string): HelmBinary => {
    const bin = env[key] ?? '';
    const missing = bin !== '' && isExecutable(bin) ? '' : `${name} not built at ${bin || `$${key}`}; run hack/build-tools.sh`;
    return { name, bin, missing };
  };
  return [one('Helm 3', 'HELM3_BIN'), one('Helm 4', 'HELM4_BIN')];
}

/** Missing Helm fails under CI=true instead of skipping. */
export const HELM_MUST_RUN = process.env['CI'] === 'true';

/** The skip reason for describe.skipIf: empty when the suite must run (binary present, or CI). */
export function skipReason(helm: HelmBinary): string {
  return HELM_MUST_RUN ? '' : helm.missing;
}

/** The outcome of one helm command. */
export interface HelmRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * One scratch folder per test file for Helm's own state (caches, repositories, plugins, kept out of the
 * user's home), values files and parent charts; removed after the file's tests (vitest loads this
 * module afresh for each test file, so the hook lands in the file that imports it).
 */
const SCRATCH = mkdtempSync(join(tmpdir(), 'icd-helm-'));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));
const HELM_HOME = join(SCRATCH, 'home');

/** Helm's environment: its state in the scratch folder, and no kubeconfig unless the args name one. */
function helmEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: HELM_HOME,
    HELM_CACHE_HOME: join(HELM_HOME, 'cache'),
    HELM_CONFIG_HOME: join(HELM_HOME, 'config'),
    HELM_DATA_HOME: join(HELM_HOME, 'data'),
    KUBECONFIG: join(HELM_HOME, 'no-kubeconfig'),
  };
}

/** Runs `helm args...` and returns its exit code and output; throws only when the binary cannot start. */
export function runHelm(helm: HelmBinary, args: readonly string[]): HelmRun {
  if (helm.missing !== '') throw new Error(helm.missing);
  const run = spawnSync(helm.bin, [...args], { encoding: 'utf8', env: helmEnv(), timeout: 60_000 });
  if (run.error !== undefined) throw run.error;
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Like {@link runHelm}, without blocking: for tests that watch the cluster while Helm waits on it. */
export function runHelmAsync(helm: HelmBinary, args: readonly string[], timeoutMs = 180_000): Promise<BundleRun> {
  if (helm.missing !== '') return Promise.reject(new Error(helm.missing));
  return collectProcess(helm.bin, args, { env: helmEnv(), timeoutMs });
}

/**
 * Values for one render, written as JSON (valid YAML that Helm's YAML 1.1 parser cannot reinterpret,
 * e.g. `yes` as a boolean), so that types survive exactly.
 */
export type Values = Record<string, unknown>;

function valuesFile(values: Values): string {
  const file = join(mkdtempSync(join(SCRATCH, 'values-')), 'values.yaml');
  writeFileSync(file, JSON.stringify(values));
  return file;
}

/** Which chart and how: chart/ unless `chartDir` names another (e.g. a parent holding it as a subchart). */
export interface ChartOptions {
  readonly release?: string;
  readonly namespace?: string;
  readonly values?: Values;
  readonly chartDir?: string;
  /** API versions the cluster is said to serve (`helm template --api-versions`), e.g. `monitoring.coreos.com/v1/PodMonitor`. */
  readonly apiVersions?: readonly string[];
}

/** The arguments selecting namespace and values for template and lint. */
function chartArgs(opts: ChartOptions): string[] {
  return [
    ...(opts.namespace === undefined ? [] : ['--namespace', opts.namespace]),
    ...(opts.values === undefined ? [] : ['--values', valuesFile(opts.values)]),
    ...(opts.apiVersions ?? []).flatMap((version) => ['--api-versions', version]),
  ];
}

/** `helm template` of chart/ with these values; throws with Helm's message when it refuses. */
export function helmTemplate(helm: HelmBinary, opts: ChartOptions = {}): KubeObject[] {
  const run = runHelm(helm, ['template', opts.release ?? 'doctor', opts.chartDir ?? CHART_DIR, ...chartArgs(opts)]);
  if (run.code !== 0) throw new Error(`helm template failed (${run.code ?? 'killed'}): ${run.stderr.trim()}`);
  return parseManifests(run.stdout);
}

/** `helm template` expected to fail: its error output (throws when it renders). */
export function helmTemplateError(helm: HelmBinary, opts: ChartOptions): string {
  const run = runHelm(helm, ['template', opts.release ?? 'doctor', opts.chartDir ?? CHART_DIR, ...chartArgs(opts)]);
  if (run.code === 0) throw new Error('helm template rendered values it should have refused');
  return run.stderr;
}

/** `helm lint [--strict]` of chart/ (with its subcharts, if any) with these values. */
export function helmLint(helm: HelmBinary, opts: ChartOptions & { strict?: boolean } = {}): HelmRun {
  return runHelm(helm, [
    'lint',
    opts.chartDir ?? CHART_DIR,
    '--with-subcharts',
    ...(opts.strict === true ? ['--strict'] : []),
    ...chartArgs(opts),
  ]);
}

/**
 * A parent chart in a temp dir holding a copy of chart/ as its subchart, with `values` as the parent's
 * values.yaml; returns its directory.
 */
export function parentChart(values: Values): string {
  const dir = join(mkdtempSync(join(SCRATCH, 'parent-')), 'parent');
  cpSync(CHART_DIR, join(dir, 'charts', 'inferencecache-doctor'), { recursive: true });
  mkdirSync(join(dir, 'templates'));
  const { name, version } = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as { name: string; version: string };
  writeFileSync(
    join(dir, 'Chart.yaml'),
    JSON.stringify({ apiVersion: 'v2', name: 'parent', version: '0.1.0', dependencies: [{ name, version }] }),
  );
  writeFileSync(join(dir, 'values.yaml'), JSON.stringify(values));
  return dir;
}

/** Every Kubernetes object in a multi-document YAML stream (empty documents skipped). */
export function parseManifests(text: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const [i, doc] of parseAllDocuments(text).entries()) {
    if (doc.errors.length > 0) throw new Error(`rendered document ${i}: ${doc.errors[0]?.message ?? 'unknown error'}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    objects.push(value as KubeObject);
  }
  return objects;
}

/** The one object of `kind` (and `name`, when given); throws when there is not exactly one. */
export function only(objects: readonly KubeObject[], kind: string, name?: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name === undefined ? '' : ` ${name}`}, found ${found.length}`);
  return found[0] as KubeObject;
}

/** The JSON report inside `helm test --logs` output, where the pod's log follows Helm's own lines. */
export function reportIn(output: string): JsonReport {
  const start = output.indexOf('{\n  "summary"');
  if (start < 0) throw new Error(`no JSON report in the helm output:\n${output}`);
  let depth = 0;
  for (let i = start; i < output.length; i++) {
    if (output[i] === '{') depth++;
    else if (output[i] === '}' && --depth === 0) return parseReport(output.slice(start, i + 1)) as JsonReport;
  }
  throw new Error(`unterminated JSON report in the helm output:\n${output}`);
}
