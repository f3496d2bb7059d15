// The monitor on the real node, scraped by a real Prometheus (Debian's 2.42) running on this machine:
// the chart's Deployment runs `inferencecache monitor` from the image in the registry; the pod is found
// by the chart's prometheus.io annotations (Debian's Prometheus has no Kubernetes discovery, so the
// test hands it the annotated pods) and Prometheus scrapes it across the CNI bridge; the rules it
// evaluates are the chart's own file. A healthy install scrapes `up 1` and the
// findings; the server turned NOT_SERVING makes the FAIL and server-probe alerts fire in Prometheus;
// restored, they resolve.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { CACHE_BACKENDS, INSTALL_NAMESPACE, applyObjects, writeStatus } from '../../dev/cluster/manifests.ts';
import { missingForNode, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { acquireNode, releaseNode } from '../support/shared-node.ts';
import { doctorChartArgs, doctorImageValues, pullSecret, registryLoginArgs } from '../../dev/cluster/node/registry.ts';
import { REMOTE_ENDPOINT, WORKLOAD_NAMESPACE, deploySampleInstall, setServerHealth } from '../../dev/cluster/node/sample-install-pods.ts';
import { healthyBackendStatus } from '../../dev/cluster/sample-install-local.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import { pollUntil } from '../../dev/poll.ts';
import { HELM_MUST_RUN, helmBinaries, runHelmAsync } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import { prometheusMissing, startPrometheus, type Alert, type Prometheus } from '../support/prometheus/server.ts';

const HELM4 = helmBinaries().find((h) => h.name === 'Helm 4');
const missing = [...missingForNode(), ...(HELM4 === undefined || HELM4.missing !== '' ? ['Helm 4'] : [])];
const noPrometheus = prometheusMissing();
if (noPrometheus !== '') missing.push(noPrometheus);
if (missing.length > 0 && HELM_MUST_RUN) throw new Error(`the monitor on the real node must run under CI: missing ${missing.join(', ')}`);
const skip = missing.length > 0;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; see docs/monitor.md)` : '';

const RELEASE = 'watch';
const MONITOR = `${RELEASE}-inferencecache-doctor-monitor`;
/** Prometheus's scrape and evaluation interval, and the monitor's: short, so that the test waits minutes, not tens. */
const SCRAPE = '5s';
const INTERVAL = '10s';

/**
 * The chart's rules as Prometheus loads them, with one change: InferenceCacheDoctorFail waits 2
 * minutes here, not 10, so that the test does not idle for ten. Its window is promtool's business
 * (test/prometheus/rules.test.yaml); here the expressions meet the real scrape of the real pod.
 * InferenceCacheServerProbeFailing keeps its 2 minutes.
 */
function rulesForTheTest(): string {
  const shipped = readFileSync(resolve(PROJECT_ROOT, 'chart/files/prometheus-rules.yaml'), 'utf8');
  const fail = /(- alert: InferenceCacheDoctorFail\n(?:.*\n)*?\s+for: )10m\n/;
  if (!fail.test(shipped)) throw new Error("chart/files/prometheus-rules.yaml: InferenceCacheDoctorFail no longer has 'for: 10m'");
  return shipped.replace(fail, '$12m\n');
}

const firing = (alerts: readonly Alert[], name: string, code: string) =>
  alerts.find((a) => a.labels['alertname'] === name && a.labels['code'] === code && a.state === 'firing');

describe.skipIf(skip)(`the monitor on the real node, scraped by a real Prometheus${skipReason}`, () => {
  let cluster: NodeCluster;
  let released = false;
  let prometheus: Prometheus | undefined;
  const log = (l: string) => console.info(`[monitor] ${l}`);
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const targetsFile = join(mkdtempSync(join(tmpdir(), 'icd-targets-')), 'targets.json');
  /**
   * The scrape targets a Prometheus job of `role: pod` keeps by the prometheus.io annotations: each
   * running pod of the install's namespace annotated `prometheus.io/scrape: "true"`, at its IP and
   * annotated port and path, labelled with its namespace and name.
   */
  const annotatedTargets = async () => {
    const pods = await core().listNamespacedPod({ namespace: INSTALL_NAMESPACE });
    return pods.items.flatMap((pod) => {
      const a = pod.metadata?.annotations ?? {};
      const ip = pod.status?.podIP;
      if (a['prometheus.io/scrape'] !== 'true' || ip === undefined || pod.status?.phase !== 'Running') return [];
      const labels = {
        namespace: INSTALL_NAMESPACE,
        pod: pod.metadata?.name ?? '',
        __metrics_path__: a['prometheus.io/path'] ?? '/metrics',
      };
      return [{ targets: [`${ip}:${a['prometheus.io/port'] ?? ''}`], labels }];
    });
  };
  /** The healthy backend's last KV event, 5 s ago again: the suite outlasts its freshness window. */
  const refreshBackend = () =>
    writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: WORKLOAD_NAMESPACE, name: 'chat' }, healthyBackendStatus(REMOTE_ENDPOINT));

  beforeAll(async () => {
    requireBundle();
    ensureImage();
    cluster = await acquireNode({ log });
    await deploySampleInstall(cluster.kc);
    await applyObjects(cluster.kc, [pullSecret(cluster.registry, INSTALL_NAMESPACE)]);
    if (HELM4 === undefined) throw new Error('no Helm 4');
    const login = await runHelmAsync(HELM4, registryLoginArgs(cluster.registry));
    expect(login.code, login.stderr).toBe(0);
    const cp = cluster.state.controlPlane;
    const install = await runHelmAsync(
      HELM4,
      [
        'upgrade',
        '--install',
        RELEASE,
        ...doctorChartArgs(cluster.registry),
        ...[
          ...doctorImageValues(cluster.registry),
          'monitor.enabled=true',
          `monitor.interval=${INTERVAL}`,
          'monitor.cluster=node-1',
        ].flatMap((v) => ['--set', v]),
        '--kubeconfig',
        cp.kubeconfigPath,
        '--namespace',
        INSTALL_NAMESPACE,
      ],
      600_000,
    );
    expect(install.code, `${install.stdout}${install.stderr}`).toBe(0);
    // Debian's Prometheus is built without Kubernetes service discovery, so the test does what its
    // `role: pod` job with the usual relabelling does: it lists the pods, keeps those the chart
    // annotated, and hands Prometheus their address, port and path (file_sd), with their namespace and pod.
    await pollUntil('an annotated monitor pod with an IP', { timeoutMs: 300_000, intervalMs: 2_000 }, async () => {
      const targets = await annotatedTargets();
      writeFileSync(targetsFile, JSON.stringify(targets));
      return targets.length > 0 || 'none yet';
    });
    const scrapeConfigs = [
      '  - job_name: kubernetes-pods',
      '    file_sd_configs:',
      `      - { files: [${targetsFile}], refresh_interval: 5s }`,
    ].join('\n');
    prometheus = await startPrometheus({ scrapeConfigs, rules: { 'inferencecache-doctor.yaml': rulesForTheTest() }, interval: SCRAPE });
  }, 900_000);
  afterAll(async () => {
    await prometheus?.stop();
    if (cluster !== undefined && !released) await releaseNode();
  }, 300_000);

  it('a healthy install: the pod found by its annotations, Prometheus scrapes up 1 and the findings, labelled by cluster and namespace', async () => {
    const p = prometheus;
    if (p === undefined) throw new Error('no Prometheus');
    await refreshBackend();
    await pollUntil('the monitor pod scraped', { timeoutMs: 300_000, intervalMs: 2_000 }, async () => {
      const up = await p.query(`up{pod=~"${MONITOR}-.*"}`);
      const targets = (await p.targets()).map((t) => `${t.scrapeUrl} ${t.health} ${t.lastError}`);
      return up[0]?.value === 1 || `up ${JSON.stringify(up)}; targets ${targets.join(', ') || 'none'}`;
    });
    await pollUntil('a completed run scraped', { timeoutMs: 120_000, intervalMs: 2_000 }, async () => {
      const ok = await p.query('inferencecache_doctor_findings{code="SV003",status="OK"}');
      return ok[0]?.value === 1 || `SV003 OK: ${JSON.stringify(ok)}`;
    });
    const [sv003] = await p.query('inferencecache_doctor_findings{code="SV003",status="OK"}');
    expect(sv003?.metric).toMatchObject({ cluster: 'node-1', namespace: INSTALL_NAMESPACE, check: 'ServerReachability' });
    expect(sv003?.metric['pod']).toMatch(new RegExp(`^${MONITOR}-`));
    const fails = await p.query('inferencecache_doctor_findings{status="FAIL"} > 0');
    expect(fails.map((s) => s.metric['code'])).toEqual([]);
    // Every code of an active check has a series, zero when not found, so a rule can tell "none" from "not scraped".
    expect((await p.query('inferencecache_doctor_findings{code="SV002",status="FAIL"}'))[0]?.value).toBe(0);
    // The default monitor does not probe :8081: no series of the listener's checks.
    expect(await p.query('inferencecache_doctor_findings{code=~"SN.*|PL.*|PB.*|NP.*"}')).toEqual([]);
    expect((await p.query('inferencecache_doctor_last_run_exit_code'))[0]?.value).toBe(0);
    expect((await p.query('inferencecache_doctor_run_duration_seconds_count'))[0]?.value).toBeGreaterThan(0);
    expect((await p.query('inferencecache_doctor_api_requests_total'))[0]?.value).toBeGreaterThan(0);
    expect((await p.query('inferencecache_doctor_probe_duration_seconds_count{probe="grpc_health"}'))[0]?.value).toBeGreaterThan(0);
    expect((await p.alerts()).filter((a) => a.state === 'firing')).toEqual([]);
    // The Deployment is Available: in its default mode the monitor is Ready once a run completed.
    const deployment = await cluster.kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: MONITOR, namespace: INSTALL_NAMESPACE });
    expect(deployment.status?.availableReplicas).toBe(1);
    const pods = await core().listNamespacedPod({ namespace: INSTALL_NAMESPACE, labelSelector: 'inferencecache.io/doctor-role=monitor' });
    expect(pods.items[0]?.spec?.serviceAccountName).toBe(`${RELEASE}-inferencecache-doctor-monitor`);
    expect(pods.items[0]?.metadata?.labels?.['app.kubernetes.io/component']).toBe('monitor');
  }, 600_000);

  it('the server NOT_SERVING: the FAIL and server-probe alerts fire in Prometheus within their window; restored, both resolve', async () => {
    const p = prometheus;
    if (p === undefined) throw new Error('no Prometheus');
    await refreshBackend();
    await setServerHealth(cluster.kc, 'NOT_SERVING');
    const broken = Date.now();
    try {
      await pollUntil('SV002 scraped', { timeoutMs: 120_000, intervalMs: 2_000 }, async () => {
        const fail = await p.query('inferencecache_doctor_findings{code="SV002",status="FAIL"}');
        return fail[0]?.value === 1 || `SV002 FAIL: ${JSON.stringify(fail)}`;
      });
      log(`SV002 scraped ${((Date.now() - broken) / 1000).toFixed(0)} s after the server turned NOT_SERVING`);
      // Each alert's `for:` is 2 minutes; a run every 10 s and a scrape every 5 s add at most 20 s.
      await pollUntil('both alerts firing', { timeoutMs: 240_000, intervalMs: 5_000 }, async () => {
        const alerts = await p.alerts();
        const fail = firing(alerts, 'InferenceCacheDoctorFail', 'SV002');
        const probe = firing(alerts, 'InferenceCacheServerProbeFailing', 'SV002');
        return (fail !== undefined && probe !== undefined) || alerts.map((a) => `${a.labels['alertname'] ?? '?'} ${a.state}`).join(', ');
      });
      log(`both alerts firing ${((Date.now() - broken) / 1000).toFixed(0)} s after the server turned NOT_SERVING`);
      const alerts = await p.alerts();
      const probe = firing(alerts, 'InferenceCacheServerProbeFailing', 'SV002');
      expect(probe?.labels).toMatchObject({ severity: 'critical', cluster: 'node-1', namespace: INSTALL_NAMESPACE });
      expect(probe?.annotations['runbook_url']).toMatch(/docs\/monitor\.md#inferencecacheserverprobefailing$/);
      expect(probe?.annotations['description']).toContain('gRPC health');
      expect(firing(alerts, 'InferenceCacheDoctorFail', 'SV002')?.labels).toMatchObject({
        severity: 'warning',
        check: 'ServerReachability',
      });
    } finally {
      await setServerHealth(cluster.kc, 'SERVING');
    }
    const restored = Date.now();
    await refreshBackend();
    await pollUntil('both alerts resolved', { timeoutMs: 180_000, intervalMs: 5_000 }, async () => {
      const alerts = (await p.alerts()).filter((a) => a.labels['code'] === 'SV002');
      return alerts.length === 0 || alerts.map((a) => `${a.labels['alertname'] ?? '?'} ${a.state}`).join(', ');
    });
    log(`both alerts resolved ${((Date.now() - restored) / 1000).toFixed(0)} s after the server was restored`);
    expect((await p.query('inferencecache_doctor_findings{code="SV003",status="OK"}'))[0]?.value).toBe(1);
  }, 900_000);

  // The node outlives the suite (test/support/node-setup.ts takes it down at the end of the run and
  // fails the run if it leaves any process, mount, cgroup, network namespace, interface, iptables chain or ipset).
  it('Prometheus stopped, the suite leaves the node as it found it', async () => {
    await prometheus?.stop();
    prometheus = undefined;
    released = true;
    expect(await releaseNode(log)).toEqual([]);
  }, 300_000);
});
