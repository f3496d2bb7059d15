// Proves dev/cluster/manifests/ against the real test control plane: the CRDs install and serve, the install
// and the samples apply, both CacheBackend status shapes persist through /status, the upstream samples
// are accepted by our CRDs, and our CRDs agree with upstream on every field the doctor reads.
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import {
  ApiException,
  ApiextensionsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  NetworkingV1Api,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CACHE_BACKENDS,
  CACHE_POLICIES,
  CACHE_TENANTS,
  GROUP,
  INSTALL_NAMESPACE,
  VERSION,
  applyObjects,
  createNamespace,
  deleteNamespace,
  deleteObjects,
  describeApiError,
  installCrds,
  isClusterScoped,
  loadManifests,
  loadYamlFile,
  readCustomObject,
  retarget,
  writeStatus,
  type CustomResource,
  type KubeObject,
} from '../../dev/cluster/manifests.ts';
import { upstreamData } from '../support/upstream.ts';

const kubeconfig = inject('kubeconfig');
const upstream = upstreamData();

const T0 = '2026-06-03T12:00:00Z';
const T1 = '2026-06-03T12:05:00Z';

const PLURAL_BY_KIND: Record<string, CustomResource> = {
  CacheBackend: CACHE_BACKENDS,
  CacheTenant: CACHE_TENANTS,
  CachePolicy: CACHE_POLICIES,
};

function condition(type: string, status: string, reason: string, message = '') {
  return { type, status, reason, message, lastTransitionTime: T0 };
}

// ---- schema walking (on wire-shaped CRD objects) -------------------------------------------------------

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema; required?: string[] };

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: object };
  additionalPrinterColumns?: { name: string; type: string; jsonPath: string }[];
  schema: { openAPIV3Schema: Schema };
}

interface CrdSpec {
  group: string;
  scope: string;
  names: { kind: string; plural: string; singular: string; shortNames?: string[]; listKind?: string };
  versions: CrdVersion[];
}

const crdSpec = (crd: KubeObject): CrdSpec => crd['spec'] as CrdSpec;
const v1alpha1 = (crd: KubeObject): CrdVersion => {
  const v = crdSpec(crd).versions.find((x) => x.name === VERSION);
  if (!v) throw new Error(`${crd.metadata.name} has no ${VERSION}`);
  return v;
};

/** Schema node at a dotted path ("status.conditions.[].type"), with its parent; undefined when absent. */
function schemaAt(crd: KubeObject, dotted: string): { node: Schema; parent: Schema; leaf: string } | undefined {
  let node: Schema = v1alpha1(crd).schema.openAPIV3Schema;
  let parent = node;
  let leaf = '';
  for (const seg of dotted.split('.')) {
    parent = node;
    leaf = seg;
    const next = seg === '[]' ? node.items : node.properties?.[seg];
    if (!next) return undefined;
    node = next;
  }
  return { node, parent, leaf };
}

/** Differences between upstream's and our declaration of one path (empty when ours is compatible). */
function compareField(ours: KubeObject, theirs: KubeObject, dotted: string): string[] {
  const t = schemaAt(theirs, dotted);
  if (!t) return [`${dotted}: not in the upstream CRD (fix the list of doctor-read paths)`];
  const o = schemaAt(ours, dotted);
  if (!o) return [`${dotted}: missing from our CRD`];
  const diffs: string[] = [];
  for (const key of ['type', 'format', 'minimum', 'x-kubernetes-list-type']) {
    if (t.node[key] !== undefined && t.node[key] !== o.node[key]) {
      diffs.push(`${dotted}: ${key} is ${JSON.stringify(o.node[key])}, upstream ${JSON.stringify(t.node[key])}`);
    }
  }
  for (const key of ['x-kubernetes-list-map-keys']) {
    if (t.node[key] !== undefined && JSON.stringify(t.node[key]) !== JSON.stringify(o.node[key])) {
      diffs.push(`${dotted}: ${key} is ${JSON.stringify(o.node[key])}, upstream ${JSON.stringify(t.node[key])}`);
    }
  }
  const tEnum = t.node['enum'] as unknown[] | undefined;
  const oEnum = o.node['enum'] as unknown[] | undefined;
  if (tEnum && !(oEnum && tEnum.every((v) => oEnum.includes(v)))) {
    diffs.push(`${dotted}: enum ${JSON.stringify(oEnum)} does not cover upstream ${JSON.stringify(tEnum)}`);
  }
  const tAdd = t.node['additionalProperties'] as Schema | undefined;
  const oAdd = o.node['additionalProperties'] as Schema | undefined;
  if (tAdd && tAdd['type'] !== oAdd?.['type']) {
    diffs.push(`${dotted}: additionalProperties.type is ${String(oAdd?.['type'])}, upstream ${String(tAdd['type'])}`);
  }
  if (t.parent.required?.includes(t.leaf) && !o.parent.required?.includes(o.leaf)) {
    diffs.push(`${dotted}: required upstream, optional in ours`);
  }
  return diffs;
}

/** Upstream printer columns that show a doctor-read path, missing (by jsonPath and type) from ours. */
function missingColumns(ours: KubeObject, theirs: KubeObject, readPaths: string[]): { relevant: number; missing: string[] } {
  const prefixes = readPaths.map((p) => `.${p.replaceAll('.[]', '')}`);
  const shows = (jsonPath: string) => prefixes.some((p) => jsonPath === p || jsonPath.startsWith(`${p}[`) || jsonPath.startsWith(`${p}.`));
  const ourCols = v1alpha1(ours).additionalPrinterColumns ?? [];
  const relevant = (v1alpha1(theirs).additionalPrinterColumns ?? []).filter((c) => shows(c.jsonPath));
  const missing = relevant
    .filter((c) => !ourCols.some((m) => m.jsonPath === c.jsonPath && m.type === c.type))
    .map((c) => `${c.name} (${c.type} ${c.jsonPath})`);
  return { relevant: relevant.length, missing };
}

/** Server-side Table rendering of a list (what kubectl get prints). */
async function getTable(kc: KubeConfig, urlPath: string): Promise<{ columns: string[]; rows: Record<string, unknown>[] }> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('no current cluster');
  const opts: https.RequestOptions = { method: 'GET', headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } };
  await kc.applyToHTTPSOptions(opts);
  const body = await new Promise<string>((resolve, reject) => {
    const req = https.request(new URL(urlPath, server), opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`GET ${urlPath}: HTTP ${res.statusCode ?? 'unknown'}: ${text}`));
      });
    });
    req.on('error', reject);
    req.end();
  });
  const table = JSON.parse(body) as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
  const columns = table.columnDefinitions.map((c) => c.name);
  const rows = table.rows.map((r) => Object.fromEntries(columns.map((name, i) => [name, r.cells[i]])));
  return { columns, rows };
}

async function rejection(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: err instanceof ApiException ? err.code : -1, message: describeApiError(err) };
  }
  throw new Error('expected the API server to reject the request');
}

// ---- suites ---------------------------------------------------------------------------------------------

describe.skipIf(!kubeconfig)(`fixtures ${kubeconfig ? '' : `(skipped: ${inject('controlPlaneSkipReason')})`}`, () => {
  const kc = new KubeConfig();
  const run = Date.now().toString(36);
  const ns = `fixtures-${run}`;
  const installNs = `fixtures-install-${run}`;
  const ourCrds = loadManifests('crds');
  const install = loadManifests('install');
  const retargeted = retarget(install, installNs);

  beforeAll(async () => {
    kc.loadFromFile(kubeconfig);
    await installCrds(kc);
    await createNamespace(kc, ns, { 'app.kubernetes.io/part-of': 'inferencecache-doctor-tests' });
  });

  afterAll(async () => {
    if (!kubeconfig) return;
    await deleteObjects(
      kc,
      retargeted.filter((o) => isClusterScoped(o) && o.kind !== 'Namespace'),
    );
    await deleteNamespace(kc, ns);
    await deleteNamespace(kc, installNs);
  });

  describe('CRDs', () => {
    it('are Established, namespaced, served and stored as v1alpha1, with a status subresource', async () => {
      const ext = kc.makeApiClient(ApiextensionsV1Api);
      const expected = [
        { name: 'cachebackends.inferencecache.io', kind: 'CacheBackend', short: 'cb' },
        { name: 'cachetenants.inferencecache.io', kind: 'CacheTenant', short: 'ct' },
        { name: 'cachepolicies.inferencecache.io', kind: 'CachePolicy', short: 'cpol' },
      ];
      expect(ourCrds.map((c) => c.metadata.name).sort()).toEqual(expected.map((e) => e.name).sort());
      for (const e of expected) {
        const live = await ext.readCustomResourceDefinition({ name: e.name });
        expect(live.status?.conditions?.find((c) => c.type === 'Established')?.status, e.name).toBe('True');
        expect(live.status?.conditions?.find((c) => c.type === 'NamesAccepted')?.status, e.name).toBe('True');
        expect(live.spec.group).toBe(GROUP);
        expect(live.spec.scope).toBe('Namespaced');
        expect(live.spec.names.kind).toBe(e.kind);
        expect(live.spec.names.shortNames).toEqual([e.short]);
        expect(live.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([[VERSION, true, true]]);
        expect(live.spec.versions[0]?.subresources?.status).toEqual({});
        // survived the client's typed round trip: the spec stays open to fields we do not model
        expect(live.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.['spec']?.x_kubernetes_preserve_unknown_fields, e.name).toBe(
          true,
        );
      }
    });

    it('install again without error (idempotent)', async () => {
      await expect(installCrds(kc)).resolves.toHaveLength(3);
    });
  });

  describe('install', () => {
    it('is the R-9.2 layout in inference-cache-system', () => {
      const byKindName = new Map(install.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
      expect([...byKindName.keys()].sort()).toEqual(
        [
          'ClusterRole/inference-cache-server-tokenreview',
          'ClusterRoleBinding/inference-cache-server-tokenreview',
          'Namespace/inference-cache-system',
          'NetworkPolicy/inference-cache-server-snapshot',
          'Service/inference-cache-server',
          'ServiceAccount/inference-cache-controller-manager',
          'ServiceAccount/inference-cache-server',
        ].sort(),
      );
      for (const o of install.filter((x) => !isClusterScoped(x))) expect(o.metadata.namespace, o.kind).toBe(INSTALL_NAMESPACE);
      for (const o of install) expect(o.metadata.labels?.['app.kubernetes.io/name'], o.kind).toBe('inference-cache');

      const np = byKindName.get('NetworkPolicy/inference-cache-server-snapshot')?.['spec'] as {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: {
          from?: { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: unknown }[];
          ports: { protocol: string; port: number }[];
        }[];
      };
      const serverLabels = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'server' };
      expect(np.podSelector.matchLabels).toEqual(serverLabels);
      expect(np.policyTypes).toEqual(['Ingress']);
      expect(np.ingress).toHaveLength(2);
      expect(np.ingress[0]?.from).toBeUndefined();
      expect(np.ingress[0]?.ports.map((p) => `${p.protocol}/${p.port}`).sort()).toEqual(['TCP/8080', 'TCP/9090']);
      expect(np.ingress[1]?.ports.map((p) => `${p.protocol}/${p.port}`)).toEqual(['TCP/8081']);
      expect(np.ingress[1]?.from).toEqual([
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'controller' } } },
      ]);
    });

    it('applies (moved to a namespace of its own) and lets only the server SA create TokenReviews', async () => {
      await applyObjects(kc, retargeted);
      const svc = await kc.makeApiClient(CoreV1Api).readNamespacedService({ name: 'inference-cache-server', namespace: installNs });
      expect(svc.spec?.type).toBe('ClusterIP');
      expect(svc.spec?.selector).toEqual({ 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'server' });
      expect(svc.spec?.ports?.map((p) => [p.name, p.port, p.protocol, p.targetPort])).toEqual([
        ['grpc', 9090, 'TCP', 'grpc'],
        ['http', 8080, 'TCP', 'http'],
        ['snapshot', 8081, 'TCP', 'snapshot'],
      ]);
      const np = await kc
        .makeApiClient(NetworkingV1Api)
        .readNamespacedNetworkPolicy({ name: 'inference-cache-server-snapshot', namespace: installNs });
      expect(np.spec?.ingress?.[1]?._from?.[0]?.namespaceSelector).toBeUndefined();

      const authz = kc.makeApiClient(AuthorizationV1Api);
      const canCreateTokenReviews = async (sa: string): Promise<boolean> => {
        const review = await authz.createSubjectAccessReview({
          body: {
            spec: {
              user: `system:serviceaccount:${installNs}:${sa}`,
              groups: ['system:serviceaccounts', `system:serviceaccounts:${installNs}`, 'system:authenticated'],
              resourceAttributes: { group: 'authentication.k8s.io', resource: 'tokenreviews', verb: 'create' },
            },
          },
        });
        return review.status?.allowed === true;
      };
      expect(await canCreateTokenReviews('inference-cache-server')).toBe(true);
      expect(await canCreateTokenReviews('inference-cache-controller-manager')).toBe(false);
    });
  });

  describe('samples and status', () => {
    const samples = loadManifests('samples');
    const backend = (name: string) => ({ ...CACHE_BACKENDS, namespace: ns, name });

    it('apply, with schema defaults filled in', async () => {
      expect(samples.map((s) => `${s.kind}/${s.metadata.name}`).sort()).toEqual([
        'CacheBackend/external',
        'CacheBackend/host-only',
        'CacheBackend/managed',
        'CachePolicy/policy',
        'CacheTenant/tenant',
      ]);
      for (const s of samples) expect(s.metadata.namespace, s.metadata.name).toBeUndefined();
      for (const s of samples) expect(s['status'], s.metadata.name).toBeUndefined();
      await applyObjects(kc, samples, { namespace: ns });

      const custom = kc.makeApiClient(CustomObjectsApi);
      const list = (await custom.listNamespacedCustomObject({ ...CACHE_BACKENDS, namespace: ns })) as { items: KubeObject[] };
      expect(list.items.map((i) => i.metadata.name).sort()).toEqual(['external', 'host-only', 'managed']);
      const hostOnly = await readCustomObject(kc, backend('host-only'));
      expect(hostOnly['spec']).toMatchObject({ runtime: 'VLLM', type: 'LMCache' });
      expect((hostOnly['spec'] as Record<string, unknown>)['remoteStorage']).toBeUndefined();
      const external = await readCustomObject(kc, backend('external'));
      expect(external['spec']).toMatchObject({ remoteStorage: { ownership: 'External', endpoint: 'redis.cache.example:6379' } });
      const tenant = await readCustomObject(kc, { ...CACHE_TENANTS, namespace: ns, name: 'tenant' });
      expect(tenant['spec']).toEqual({ tenantID: 'team-blue', isolationMode: 'Fairness', quota: { maxIndexEntries: 1000 } });
      const policies = (await custom.listNamespacedCustomObject({ ...CACHE_POLICIES, namespace: ns })) as { items: unknown[] };
      expect(policies.items).toHaveLength(1);
    });

    it('persist a status written through /status with status.remoteStorage.endpoint (current shape)', async () => {
      const status = {
        observedGeneration: 1,
        conditions: [
          condition('Ready', 'True', 'KVEventsObserved', 'engine pods report KV events'),
          condition('FunctionalProbeOK', 'True', 'ProbeSucceeded'),
        ],
        matchedEnginePods: 2,
        firstKVEventObservedAt: T0,
        indexParticipation: { prefixCount: 42, lastEventAt: T1, hitRate: '0.50' },
        remoteStorage: { provider: 'Redis', endpoint: `managed-redis.${ns}.svc:6379`, ready: 'True' },
        connector: { mode: 'PodLocal', readyServers: 1 },
      };
      const answer = await writeStatus(kc, backend('managed'), status);
      expect(answer['status']).toEqual(status);
      const stored = await readCustomObject(kc, backend('managed'));
      expect(stored['status']).toEqual(status);
      expect(stored['spec']).toMatchObject({ runtime: 'VLLM', remoteStorage: { ownership: 'Managed' } });
    });

    it('persist a status with the older flat status.endpoint', async () => {
      const status = {
        conditions: [condition('Ready', 'False', 'NoKVEventsObserved', 'no events seen')],
        matchedEnginePods: 0,
        endpoint: 'redis.cache.example:6379',
        observedServerInstance: 'server-7f9c',
      };
      await writeStatus(kc, backend('external'), status);
      const stored = await readCustomObject(kc, backend('external'));
      expect(stored['status']).toEqual(status);
      expect((stored['status'] as Record<string, unknown>)['remoteStorage']).toBeUndefined();
    });

    it('show both endpoint shapes in the printer columns', async () => {
      const { columns, rows } = await getTable(kc, `/apis/${GROUP}/${VERSION}/namespaces/${ns}/cachebackends`);
      expect(columns).toEqual(
        expect.arrayContaining(['Name', 'Type', 'Ready', 'Matched', 'Remote', 'Endpoint', 'Prefixes', 'LastEvent', 'Age']),
      );
      const row = (name: string) => rows.find((r) => r['Name'] === name);
      expect(row('managed')).toMatchObject({ Ready: 'True', Matched: 2, Remote: `managed-redis.${ns}.svc:6379`, Prefixes: 42 });
      expect(row('external')).toMatchObject({ Ready: 'False', Matched: 0, Endpoint: 'redis.cache.example:6379' });
    });

    it('persist a tenant status (indexEntries, QuotaExceeded)', async () => {
      const ref = { ...CACHE_TENANTS, namespace: ns, name: 'tenant' };
      const status = { indexEntries: 1200, conditions: [condition('QuotaExceeded', 'True', 'OverQuota', 'evicting oldest entries')] };
      await writeStatus(kc, ref, status);
      expect((await readCustomObject(kc, ref))['status']).toEqual(status);
    });

    it('reject status that breaks the schema', async () => {
      const ref = backend('host-only');
      const cases: Record<string, unknown>[] = [
        { matchedEnginePods: -1 },
        { indexParticipation: { lastEventAt: T1 } },
        { firstKVEventObservedAt: 'yesterday' },
        { conditions: [{ type: 'Ready', status: 'Maybe', reason: 'X', message: '', lastTransitionTime: T0 }] },
        { conditions: [{ type: 'Ready', status: 'True' }] },
        { conditions: [condition('Ready', 'True', 'A'), condition('Ready', 'False', 'B')] },
      ];
      for (const status of cases) {
        const err = await rejection(writeStatus(kc, ref, status));
        expect(err.code, JSON.stringify(status)).toBe(422);
      }
      expect((await readCustomObject(kc, ref))['status']).toBeUndefined();
    });

    it('reject a spec outside the modelled enums and requirements', async () => {
      const bad: KubeObject[] = [
        { apiVersion: `${GROUP}/${VERSION}`, kind: 'CacheBackend', metadata: { name: 'bad-runtime' }, spec: { runtime: 'TGI' } },
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'CacheBackend',
          metadata: { name: 'bad-ownership' },
          spec: { runtime: 'VLLM', remoteStorage: { provider: 'Redis', ownership: 'Shared' } },
        },
        { apiVersion: `${GROUP}/${VERSION}`, kind: 'CacheTenant', metadata: { name: 'bad-tenant' }, spec: { tenantID: '' } },
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'CacheTenant',
          metadata: { name: 'bad-quota' },
          spec: { tenantID: 't', quota: { maxIndexEntries: -5 } },
        },
      ];
      for (const obj of bad) {
        const err = await rejection(
          applyObjects(kc, [obj], { namespace: ns, dryRun: true }).catch((e: Error) => {
            throw e.cause instanceof Error ? e.cause : e;
          }),
        );
        expect(err.code, obj.metadata.name).toBe(422);
      }
    });
  });

  describe.skipIf(!upstream.dir && !upstream.mustFail)(
    `against upstream ${upstream.missing ? `(${upstream.mustFail ? 'missing' : 'skipped'}: ${upstream.missing})` : ''}`,
    () => {
      it('reference data is present (required under CI=true)', () => {
        if (upstream.mustFail) throw new Error(`${upstream.missing} — required when CI=true`);
        expect(upstream.dir).toBeDefined();
      });

      describe.runIf(upstream.dir !== undefined)('reference data', () => {
        const dir = upstream.dir ?? '';
        const crdFile = (name: string) => loadYamlFile(path.join(dir, 'config/crd/bases', name))[0] as KubeObject;
        const ours = (kind: string) => ourCrds.find((c) => crdSpec(c).names.kind === kind) as KubeObject;

        it('samples for CacheBackend, CacheTenant and CachePolicy pass a strict server-side dry-run create', async () => {
          const sampleDir = path.join(dir, 'config/samples');
          const custom = kc.makeApiClient(CustomObjectsApi);
          const failures: string[] = [];
          const counts: Record<string, number> = { CacheBackend: 0, CacheTenant: 0, CachePolicy: 0 };
          for (const file of fs
            .readdirSync(sampleDir)
            .filter((f) => f.endsWith('.yaml'))
            .sort()) {
            for (const doc of loadYamlFile(path.join(sampleDir, file))) {
              const resource = PLURAL_BY_KIND[doc.kind];
              if (!resource || doc.apiVersion !== `${GROUP}/${VERSION}`) continue;
              counts[doc.kind] = (counts[doc.kind] ?? 0) + 1;
              // samples either have no namespace or name ones we do not create; dry-run them in ours
              const body = structuredClone(doc);
              body.metadata.namespace = ns;
              try {
                await custom.createNamespacedCustomObject({ ...resource, namespace: ns, body, dryRun: 'All', fieldValidation: 'Strict' });
              } catch (err) {
                failures.push(`${file}: ${doc.kind}/${doc.metadata.name}: ${describeApiError(err)}`);
              }
            }
          }
          expect(failures).toEqual([]);
          expect(counts['CacheBackend']).toBeGreaterThan(10);
          expect(counts['CacheTenant']).toBeGreaterThan(0);
          expect(counts['CachePolicy']).toBeGreaterThan(0);
        });

        it('CRDs share group, names, scope, version and status subresource with upstream', () => {
          for (const file of [
            'inferencecache.io_cachebackends.yaml',
            'inferencecache.io_cachetenants.yaml',
            'inferencecache.io_cachepolicies.yaml',
          ]) {
            const theirs = crdFile(file);
            const mine = ours(crdSpec(theirs).names.kind);
            expect(mine.metadata.name).toBe(theirs.metadata.name);
            expect(crdSpec(mine).group).toBe(crdSpec(theirs).group);
            expect(crdSpec(mine).scope).toBe(crdSpec(theirs).scope);
            expect(crdSpec(mine).names).toEqual(crdSpec(theirs).names);
            const [mv, tv] = [v1alpha1(mine), v1alpha1(theirs)];
            expect([mv.served, mv.storage, mv.subresources]).toEqual([tv.served, tv.storage, tv.subresources]);
          }
        });

        // Paths the doctor reads (docs/upstream.md §2.4-§2.8 and §10).
        const BACKEND_READS = [
          'spec.engineSelector',
          'spec.engineSelector.matchLabels',
          'spec.remoteStorage',
          'spec.remoteStorage.ownership',
          'status.conditions',
          'status.conditions.[].type',
          'status.conditions.[].status',
          'status.conditions.[].reason',
          'status.conditions.[].message',
          'status.matchedEnginePods',
          'status.firstKVEventObservedAt',
          'status.indexParticipation',
          'status.indexParticipation.prefixCount',
          'status.indexParticipation.lastEventAt',
          'status.remoteStorage',
          'status.remoteStorage.endpoint',
        ];
        const OLD_BACKEND_READS = [
          'status.endpoint',
          'status.conditions',
          'status.matchedEnginePods',
          'status.indexParticipation.prefixCount',
        ];
        const TENANT_READS = [
          'spec.tenantID',
          'spec.quota',
          'spec.quota.maxIndexEntries',
          'status.indexEntries',
          'status.conditions',
          'status.conditions.[].type',
          'status.conditions.[].status',
          'status.conditions.[].message',
        ];
        const cases = [
          { file: 'inferencecache.io_cachebackends.yaml', kind: 'CacheBackend', reads: BACKEND_READS, minColumns: 5 },
          { file: 'inferencecache.io_cachebackends.a06158b.yaml', kind: 'CacheBackend', reads: OLD_BACKEND_READS, minColumns: 4 },
          { file: 'inferencecache.io_cachetenants.yaml', kind: 'CacheTenant', reads: TENANT_READS, minColumns: 3 },
        ];

        it.each(cases)('$file: our CRD declares every doctor-read field and its printer columns', ({ file, kind, reads, minColumns }) => {
          const theirs = crdFile(file);
          const mine = ours(kind);
          expect(reads.flatMap((p) => compareField(mine, theirs, p))).toEqual([]);
          const cols = missingColumns(mine, theirs, reads);
          expect(cols.missing).toEqual([]);
          expect(cols.relevant).toBeGreaterThanOrEqual(minColumns);
        });
      });
    },
  );
});
