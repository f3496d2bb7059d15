// The monitor's objects in `helm template` on Helm 3 and Helm 4: none unless enabled; by default the least
// an operator must trust (its own ServiceAccount and labels, no controller token, no :8081 probe); with
// probeControllerListener the controller's shape, never Ready; a PodMonitor and the PrometheusRule only
// where their API exists, the rule's spec being chart/files/prometheus-rules.yaml as it is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubeObject } from '../../../dev/cluster/manifests.ts';
import { CHART_DIR, helmBinaries, helmTemplate, only, skipReason, type Values } from '../../support/helm.ts';

const NS = 'inference-cache-system';
const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'controller' };
const OPERATOR_APIS = ['monitoring.coreos.com/v1/PodMonitor', 'monitoring.coreos.com/v1/PrometheusRule'];
const MONITOR = 'doctor-inferencecache-doctor-monitor';

interface Container {
  args: string[];
  ports: { name: string; containerPort: number }[];
  readinessProbe?: unknown;
  livenessProbe?: { httpGet: { path: string; port: string } };
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    serviceAccountName: string;
    readinessGates?: { conditionType: string }[];
    containers: Container[];
    volumes: { name: string; projected?: { sources: { serviceAccountToken?: { audience: string } }[] } }[];
  };
}

/** Whether `selector` (matchLabels) selects a pod with `labels`. */
function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

for (const helm of helmBinaries()) {
  const skip = skipReason(helm);
  describe.skipIf(skip !== '')(`the monitor rendered by ${helm.name}${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
    const render = (values: Values, apiVersions: readonly string[] = []) => helmTemplate(helm, { namespace: NS, values, apiVersions });
    const template = (objects: KubeObject[]) => (only(objects, 'Deployment', MONITOR) as unknown as { spec: { template: PodTemplate; selector: { matchLabels: Record<string, string> } } }).spec;
    const container = (objects: KubeObject[]) => template(objects).template.spec.containers[0] as Container;

    it('renders nothing of the monitor unless enabled', () => {
      const objects = render({}, OPERATOR_APIS);
      expect(objects.filter((o) => o.metadata.name === MONITOR)).toEqual([]);
      expect(objects.map((o) => o.kind)).not.toContain('PodMonitor');
    });

    it('by default: its own ServiceAccount and labels, no controller token, no :8081 probe, Ready once a run completed', () => {
      const objects = render({ monitor: { enabled: true } });
      const { template: pod, selector } = template(objects);
      expect(pod.spec.serviceAccountName).toBe(MONITOR);
      expect(only(objects, 'ServiceAccount', MONITOR)).toBeDefined();
      expect(selects(CONTROLLER_LABELS, pod.metadata.labels)).toBe(false);
      expect(pod.spec.readinessGates).toBeUndefined();
      expect(pod.spec.volumes.map((v) => v.name)).toEqual(['podinfo']);
      const c = container(objects);
      expect(c.args).toEqual(['monitor', '--listen-address', ':8080', '--interval', '1m', '--timeout', '30s', '--fail-on', 'fail']);
      expect(c.readinessProbe).toEqual({ httpGet: { path: '/readyz', port: 'metrics' }, periodSeconds: 10, timeoutSeconds: 5 });
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
      expect(c.ports).toEqual([{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }]);
      // The chart's read-only role reaches the monitor's account too.
      const binding = only(objects, 'ClusterRoleBinding') as unknown as { subjects: { name: string; namespace: string }[] };
      expect(binding.subjects).toContainEqual({ kind: 'ServiceAccount', name: MONITOR, namespace: NS });
      // Its selector selects its own pods and no controller pod, whatever that pod's template hash.
      expect(selects(selector.matchLabels, pod.metadata.labels)).toBe(true);
      expect(selects(selector.matchLabels, { ...CONTROLLER_LABELS, 'pod-template-hash': 'abc' })).toBe(false);
    });

    it('without the operator API: scrape annotations, no PodMonitor, no PrometheusRule', () => {
      const objects = render({ monitor: { enabled: true } });
      expect(template(objects).template.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080', 'prometheus.io/path': '/metrics' });
      expect(objects.map((o) => o.kind).filter((k) => k === 'PodMonitor' || k === 'PrometheusRule')).toEqual([]);
      const service = only(objects, 'Service', MONITOR) as unknown as { spec: { selector: Record<string, string>; ports: unknown[] } };
      expect(service.spec.selector).toEqual(template(objects).selector.matchLabels);
    });

    it('with the operator API: a PodMonitor of the metrics port, and the rules file as the PrometheusRule', () => {
      const objects = render({ monitor: { enabled: true, podMonitor: { labels: { release: 'kps' } }, prometheusRule: { labels: { role: 'alert-rules' } } } }, OPERATOR_APIS);
      expect(template(objects).template.metadata.annotations).toBeUndefined();
      const podMonitor = only(objects, 'PodMonitor', MONITOR) as unknown as { metadata: { labels: Record<string, string> }; spec: { selector: { matchLabels: Record<string, string> }; podMetricsEndpoints: unknown[] } };
      expect(podMonitor.metadata.labels['release']).toBe('kps');
      expect(podMonitor.spec.selector.matchLabels).toEqual(template(objects).selector.matchLabels);
      expect(podMonitor.spec.podMetricsEndpoints).toEqual([{ port: 'metrics', path: '/metrics' }]);
      const rule = only(objects, 'PrometheusRule', MONITOR) as unknown as { metadata: { labels: Record<string, string> }; spec: unknown };
      expect(rule.metadata.labels['role']).toBe('alert-rules');
      expect(rule.spec).toEqual(parse(readFileSync(join(CHART_DIR, 'files/prometheus-rules.yaml'), 'utf8')));
    });

    it('probeControllerListener: the controller\'s shape, its token, the :8081 flags, and never Ready', () => {
      const objects = render({ monitor: { enabled: true, probeControllerListener: true, cluster: 'east-1', resourceSeries: 50 } });
      const { template: pod, selector } = template(objects);
      expect(pod.spec.serviceAccountName).toBe('inference-cache-controller-manager');
      expect(objects.filter((o) => o.kind === 'ServiceAccount')).toEqual([]);
      expect(selects(CONTROLLER_LABELS, pod.metadata.labels)).toBe(true);
      expect(Object.keys(pod.metadata.labels)).not.toContain('pod-template-hash');
      expect(pod.spec.readinessGates).toEqual([{ conditionType: 'inferencecache.io/never-ready' }]);
      const c = container(objects);
      expect(c.readinessProbe).toBeUndefined();
      expect(c.args).toEqual([
        'monitor', '--listen-address', ':8080', '--interval', '1m', '--timeout', '30s', '--fail-on', 'fail',
        '--cluster', 'east-1', '--resource-series', '50',
        '--probe-controller-listener', '--snapshot-token-file', '/var/run/secrets/inferencecache.io/controller-token/token',
      ]);
      const token = pod.spec.volumes.find((v) => v.name === 'controller-token');
      expect(token?.projected?.sources[0]?.serviceAccountToken?.audience).toBe('inferencecache.io/controller');
      // The controller's Deployment selects these labels, its ReplicaSet adds its own template hash:
      // neither selects the monitor's pod by the monitor's selector, nor the monitor's selector a controller pod.
      expect(selects(selector.matchLabels, { ...CONTROLLER_LABELS, 'pod-template-hash': 'abc' })).toBe(false);
      expect(selects({ ...CONTROLLER_LABELS, 'pod-template-hash': 'abc' }, pod.metadata.labels)).toBe(false);
      const service = only(objects, 'Service', MONITOR) as unknown as { spec: { publishNotReadyAddresses: boolean } };
      expect(service.spec.publishNotReadyAddresses).toBe(true);
    });
  });
}
