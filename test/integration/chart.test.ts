// The chart's rendered manifests (Helm 3 and Helm 4) against the test control plane: a server-side dry
// run in a namespace that enforces PodSecurity `restricted`; the admitted pod behind the upstream and the
// sample NetworkPolicy for :8081; and the RBAC as the API server authorizes it, read by read.
import { join } from 'node:path';
import { AuthorizationV1Api, KubeConfig, RbacAuthorizationV1Api, dumpYaml } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { apiAccesses } from '../../src/checks/registry.ts';
import { uniqueName } from '../../dev/cluster/objects.ts';
import {
  applyObjects,
  createNamespace,
  describeApiError,
  loadManifests,
  loadYamlFile,
  retarget,
  type KubeObject,
} from '../../dev/cluster/manifests.ts';
import { upstreamData } from '../support/upstream.ts';
import { helmBinaries, helmTemplate, only, skipReason as helmSkipReason, type Values } from '../support/helm.ts';
import { evaluateIngress, type NetworkPolicy, type PodEndpoint } from '../support/netpol.ts';
import { compareGrants, type PolicyRule } from '../unit/chart/grants.ts';

const kubeconfig = inject('kubeconfig');
const cpSkip = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';
const RESTRICTED = { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' };
const CONTROLLER_SA = 'inference-cache-controller-manager';

const modes: { name: string; values?: Values }[] = [
  { name: 'controller identity, Helm test' },
  { name: 'dedicated identity', values: { identity: 'dedicated' } },
  {
    name: 'every hook, server endpoint',
    values: { hooks: { helmTest: true, postInstallUpgrade: true, argoCDPostSync: true }, serverEndpoint: 'inference-cache-server:9090' },
  },
];

/** The server pod a policy fences: from the upstream Deployment's pod template, or our sample's Service. */
function upstreamServer(objects: readonly KubeObject[]): PodEndpoint {
  const d = only(objects, 'Deployment') as KubeObject & {
    spec: {
      template: {
        metadata: { labels: Record<string, string> };
        spec: { containers: { ports?: { name?: string; containerPort: number }[] }[] };
      };
    };
  };
  return {
    namespace: d.metadata.namespace ?? '',
    labels: d.spec.template.metadata.labels,
    ports: d.spec.template.spec.containers.flatMap((c) => c.ports ?? []),
  };
}
function sampleServer(objects: readonly KubeObject[]): PodEndpoint {
  const s = only(objects, 'Service') as KubeObject & {
    spec: { selector: Record<string, string>; ports: { port: number; targetPort: string }[] };
  };
  return {
    namespace: s.metadata.namespace ?? '',
    labels: s.spec.selector,
    ports: s.spec.ports.map((p) => ({ name: p.targetPort, containerPort: p.port })),
  };
}

const upstream = upstreamData();

/**
 * An API answer in wire form: client-node hands back typed models whose field names differ from the
 * manifest's (a NetworkPolicy rule's `from` becomes `_from`); its serializer turns them back.
 */
function wire<T>(typed: unknown): T {
  return parse(dumpYaml(typed)) as T;
}

describe.skipIf(kubeconfig === '')(`the chart against the test control plane${cpSkip}`, () => {
  const kc = new KubeConfig();
  beforeAll(() => kc.loadFromFile(kubeconfig));

  for (const helm of helmBinaries()) {
    const skip = helmSkipReason(helm);
    describe.skipIf(skip !== '')(`${helm.name}${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
      describe.each(modes)('$name', ({ values }) => {
        let ns = '';
        let rendered: KubeObject[] = [];
        let admitted: KubeObject[] = [];

        beforeAll(async () => {
          ns = uniqueName('chart');
          await createNamespace(kc, ns, RESTRICTED);
          rendered = helmTemplate(helm, { namespace: ns, ...(values === undefined ? {} : { values }) });
          // The identity must exist before a pod may name it: the install's controller account, or
          // the chart's own, created for real.
          const accounts = rendered.filter((o) => o.kind === 'ServiceAccount');
          await applyObjects(
            kc,
            accounts.length > 0
              ? accounts
              : [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CONTROLLER_SA, namespace: ns } }],
          );
          admitted = (await applyObjects(kc, rendered, { dryRun: true })).map((o) => wire<KubeObject>(o));
        });

        it('passes a server-side dry run, PodSecurity restricted enforced', () => {
          expect(admitted.map((o) => o.kind)).toEqual(rendered.map((o) => o.kind));
          const pods = admitted.filter((o) => o.kind === 'Pod') as (KubeObject & { spec: { readinessGates?: unknown[] } })[];
          expect(pods.length).toBeGreaterThan(0);
          for (const pod of pods) {
            expect(pod.metadata.namespace).toBe(ns);
            expect(pod.spec.readinessGates).toEqual([{ conditionType: 'inferencecache.io/never-ready' }]);
            expect(pod.metadata.labels).toMatchObject({
              'app.kubernetes.io/name': 'inference-cache',
              'app.kubernetes.io/component': 'controller',
            });
            expect(pod.metadata.labels).not.toHaveProperty(['pod-template-hash']);
          }
        });

        it('would be refused there if it dropped its restrictions (the namespace enforces)', async () => {
          const pod = structuredClone(rendered.find((o) => o.kind === 'Pod')) as KubeObject & {
            spec: { securityContext: Record<string, unknown>; containers: { securityContext: Record<string, unknown> }[] };
          };
          delete pod.spec.securityContext['runAsNonRoot'];
          for (const c of pod.spec.containers) c.securityContext = { allowPrivilegeEscalation: true };
          const refused = await applyObjects(kc, [pod], { dryRun: true }).then(
            () => '',
            (err: unknown) => describeApiError(err),
          );
          expect(refused).toMatch(/violates PodSecurity "restricted:latest"/);
        });

        const fences: { name: string; load: () => { policies: KubeObject[]; server: PodEndpoint } | undefined }[] = [
          {
            name: 'the upstream NetworkPolicy',
            load: () => {
              if (upstream.dir === undefined) return undefined;
              const dir = join(upstream.dir, 'config/server');
              return {
                policies: retarget(loadYamlFile(join(dir, 'networkpolicy.yaml')), ns),
                server: upstreamServer(retarget(loadYamlFile(join(dir, 'server.yaml')), ns)),
              };
            },
          },
          {
            name: 'our sample NetworkPolicy',
            load: () => ({
              policies: retarget(loadManifests('install/40-server-networkpolicy.yaml'), ns),
              server: sampleServer(retarget(loadManifests('install/30-server-service.yaml'), ns)),
            }),
          },
        ];
        it.each(fences)('$name, as the API server stores it, admits the admitted pod to TCP 8081', async ({ load }) => {
          const fence = load();
          if (fence === undefined) {
            if (upstream.mustFail) throw new Error(upstream.missing);
            console.warn(`[chart] skipped: ${upstream.missing}`);
            return;
          }
          const policies = (await applyObjects(kc, fence.policies, { dryRun: true })).map((p) => wire<NetworkPolicy>(p));
          expect(policies.map((p) => p.spec.policyTypes)).toEqual([['Ingress']]);
          for (const pod of admitted.filter((o) => o.kind === 'Pod')) {
            const doctor: PodEndpoint = { namespace: pod.metadata.namespace ?? '', labels: pod.metadata.labels ?? {} };
            expect(evaluateIngress(policies, fence.server, doctor, 8081)).toMatchObject({ allowed: true, isolated: true });
            expect(evaluateIngress(policies, fence.server, { ...doctor, namespace: 'elsewhere' }, 8081).allowed).toBe(false);
          }
        });
      });

      describe('RBAC, as the API server authorizes it', () => {
        let ns = '';
        let user = '';
        let groups: string[] = [];
        let roleName = '';

        beforeAll(async () => {
          ns = uniqueName('chart-rbac');
          await createNamespace(kc, ns, RESTRICTED);
          const rendered = helmTemplate(helm, { namespace: ns, values: { identity: 'dedicated' } });
          await applyObjects(
            kc,
            rendered.filter((o) => o.kind !== 'Pod'),
          );
          const sa = only(rendered, 'ServiceAccount').metadata.name;
          roleName = only(rendered, 'ClusterRole').metadata.name;
          user = `system:serviceaccount:${ns}:${sa}`;
          groups = ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'];
        });

        const allowed = async (group: string, resource: string, verb: string): Promise<boolean> => {
          const sar = await kc.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
            body: { spec: { user, groups, resourceAttributes: { group, resource, verb, namespace: 'anywhere' } } },
          });
          return sar.status?.allowed === true;
        };

        it('stores a ClusterRole that grants exactly the declared reads, in both directions', async () => {
          const role = await kc.makeApiClient(RbacAuthorizationV1Api).readClusterRole({ name: roleName });
          const rules: PolicyRule[] = (role.rules ?? []).map((r) => ({
            apiGroups: r.apiGroups ?? [],
            resources: r.resources ?? [],
            verbs: r.verbs,
          }));
          expect(compareGrants(rules, apiAccesses())).toEqual({ missing: [], extra: [] });
          for (const rule of rules) for (const verb of rule.verbs ?? []) expect(['get', 'list', 'watch']).toContain(verb);
        });

        it("lets the pod's identity make every declared read", async () => {
          const denied: string[] = [];
          for (const deadline = Date.now() + 10_000; ;) {
            denied.length = 0;
            for (const read of apiAccesses().filter((r) => r.byNameOnly !== true)) {
              for (const verb of read.verbs) if (!(await allowed(read.group, read.resource, verb))) denied.push(`${read.resource}:${verb}`);
            }
            if (denied.length === 0 || Date.now() > deadline) break;
            await new Promise((r) => setTimeout(r, 200));
          }
          expect(denied).toEqual([]);
        });

        it('and nothing that writes, nor reads it did not declare', async () => {
          const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
          const declared = new Set(
            apiAccesses()
              .filter((r) => r.byNameOnly !== true)
              .flatMap((r) => r.verbs.map((v) => `${r.group}/${r.resource}:${v}`)),
          );
          const others: [string, string][] = [
            ['', 'configmaps'],
            ['apps', 'deployments'],
            ['rbac.authorization.k8s.io', 'clusterroles'],
            ['inferencecache.io', 'cacheindices'],
          ];
          const candidates = [...apiAccesses().map((r): [string, string] => [r.group, r.resource]), ...others]
            .flatMap(([group, resource]) => verbs.map((verb): [string, string, string] => [group, resource, verb]))
            .filter(([group, resource, verb]) => !declared.has(`${group}/${resource}:${verb}`));
          expect(candidates.length).toBeGreaterThan(80);
          const granted: string[] = [];
          for (const [group, resource, verb] of candidates)
            if (await allowed(group, resource, verb)) granted.push(`${group}/${resource}:${verb}`);
          expect(granted).toEqual([]);
        });
      });
    });
  }
});
