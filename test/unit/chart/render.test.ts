// `helm template` of chart/ on Helm 3 and Helm 4: the doctor pod for the default values and for each
// mode, and the properties every rendering must keep.
import { describe, expect, it } from 'vitest';
import { helmBinaries, helmTemplate, only, skipReason, type Values } from '../../support/helm.ts';
import type { KubeObject } from '../../../dev/cluster/manifests.ts';
import type { PolicyRule } from './grants.ts';
import { podFacts, type PodFacts, type PodObject } from './pod-facts.ts';

const SERVER_NS = 'inference-cache-system';
const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'controller' };
const TOKEN_FILE = '/var/run/secrets/inferencecache.io/controller-token/token';
const TLS_DIR = '/var/run/secrets/inferencecache.io/server-tls';
/** The doctor's flags for TLS on the server's gRPC port, including those the chart never passes. */
const TLS_FLAGS = ['--server-tls', '--server-ca-file', '--server-name', '--server-insecure-skip-verify', '--server-cert-file', '--server-key-file'];
const EVERY_HOOK = { helmTest: true, postInstallUpgrade: true, argoCDPostSync: true };

interface RenderCase {
  readonly name: string;
  readonly namespace?: string;
  readonly values?: Values;
  /** Facts the rendered pod must have (a subset). */
  readonly want: Partial<Omit<PodFacts, 'flag'>>;
  /** Flags and their values the args must hold; undefined means the flag must be absent. */
  readonly flags?: Readonly<Record<string, string | undefined>>;
  /** Annotation keys that must be absent. */
  readonly noAnnotations?: readonly string[];
  /** The ServiceAccount objects the chart renders (names). */
  readonly serviceAccounts?: readonly string[];
  /** Facts of the after-deploy pod (`<fullname>-deploy`), when the case renders one beside the test pod. */
  readonly deploy?: Partial<Omit<PodFacts, 'flag'>> & { readonly flags?: Readonly<Record<string, string | undefined>> };
}

const HELM_TEST = { 'helm.sh/hook': 'test', 'helm.sh/hook-delete-policy': 'before-hook-creation' };
const ARGO = { 'argocd.argoproj.io/hook': 'PostSync', 'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation' };
const POST_INSTALL = { 'helm.sh/hook': 'post-install,post-upgrade', 'helm.sh/hook-delete-policy': 'before-hook-creation' };

const cases: readonly RenderCase[] = [
  {
    name: 'defaults, installed into the server namespace',
    namespace: SERVER_NS,
    want: {
      name: 'doctor-inferencecache-doctor',
      namespace: SERVER_NS,
      serviceAccount: 'inference-cache-controller-manager',
      annotations: HELM_TEST,
      image: 'ghcr.io/inference-cache/inferencecache-doctor:0.1.0',
      activeDeadlineSeconds: 60,
      tokenFile: TOKEN_FILE,
      tokenAudience: 'inferencecache.io/controller',
      tokenExpirationSeconds: 600,
    },
    flags: {
      '--timeout': '30s',
      '--fail-on': 'fail',
      '--snapshot-token-file': TOKEN_FILE,
      '--server-endpoint': undefined,
      '--wait': undefined,
      '--suppress': undefined,
      ...Object.fromEntries(TLS_FLAGS.map((f) => [f, undefined])),
    },
    noAnnotations: ['argocd.argoproj.io/hook'],
    serviceAccounts: [],
  },
  {
    name: 'the namespace value moves the pod, whatever the release namespace',
    namespace: 'tools',
    values: { namespace: 'cache-prod' },
    want: { namespace: 'cache-prod' },
  },
  {
    name: 'an empty namespace value means the release namespace',
    namespace: 'cache-staging',
    values: { namespace: '' },
    want: { namespace: 'cache-staging' },
  },
  {
    name: 'dedicated identity: the chart\'s own ServiceAccount',
    namespace: SERVER_NS,
    values: { identity: 'dedicated' },
    want: { serviceAccount: 'doctor-inferencecache-doctor', tokenAudience: 'inferencecache.io/controller' },
    serviceAccounts: ['doctor-inferencecache-doctor'],
  },
  {
    name: 'dedicated identity with a chosen name',
    namespace: SERVER_NS,
    values: { identity: 'dedicated', dedicatedServiceAccount: { name: 'doctor-reader', annotations: { team: 'sre' } } },
    want: { serviceAccount: 'doctor-reader' },
    serviceAccounts: ['doctor-reader'],
  },
  {
    name: 'a renamed controller ServiceAccount',
    namespace: SERVER_NS,
    values: { controller: { labels: CONTROLLER_LABELS, serviceAccountName: 'cache-controller' } },
    want: { serviceAccount: 'cache-controller' },
    serviceAccounts: [],
  },
  {
    name: 'post-install and post-upgrade as well as the test: a pod each, only the deploy one waits',
    namespace: SERVER_NS,
    values: { hooks: { helmTest: true, postInstallUpgrade: true, argoCDPostSync: false } },
    want: { name: 'doctor-inferencecache-doctor', annotations: HELM_TEST, activeDeadlineSeconds: 60 },
    flags: { '--wait': undefined },
    deploy: { annotations: POST_INSTALL, activeDeadlineSeconds: 360, flags: { '--wait': '300s', '--timeout': '30s' } },
  },
  {
    name: 'post-install and post-upgrade only',
    namespace: SERVER_NS,
    values: { hooks: { helmTest: false, postInstallUpgrade: true, argoCDPostSync: false } },
    want: { name: 'doctor-inferencecache-doctor-deploy', annotations: POST_INSTALL, activeDeadlineSeconds: 360 },
    flags: { '--wait': '300s' },
    noAnnotations: ['argocd.argoproj.io/hook'],
  },
  {
    name: 'Argo CD PostSync next to the Helm test',
    namespace: SERVER_NS,
    values: { hooks: { helmTest: true, postInstallUpgrade: false, argoCDPostSync: true } },
    want: { annotations: HELM_TEST },
    noAnnotations: ['argocd.argoproj.io/hook'],
    deploy: { annotations: ARGO, flags: { '--wait': '300s' } },
  },
  {
    name: 'Argo CD PostSync only',
    namespace: SERVER_NS,
    values: { hooks: { helmTest: false, postInstallUpgrade: false, argoCDPostSync: true } },
    want: { annotations: ARGO },
    noAnnotations: ['helm.sh/hook', 'helm.sh/hook-delete-policy'],
  },
  {
    name: 'every hook, with waits of its own: the deploy pod is both post-install and PostSync',
    namespace: SERVER_NS,
    values: { hooks: { helmTest: true, postInstallUpgrade: true, argoCDPostSync: true }, wait: { helmTestSeconds: 20, afterDeploySeconds: 90 } },
    want: { annotations: HELM_TEST, activeDeadlineSeconds: 80 },
    flags: { '--wait': '20s' },
    deploy: { annotations: { ...POST_INSTALL, ...ARGO }, activeDeadlineSeconds: 150, flags: { '--wait': '90s' } },
  },
  {
    name: 'suppression rules, each its own --suppress',
    namespace: SERVER_NS,
    values: { suppress: ['CT001=cachetenant/batch/*', 'SN005'] },
    want: { args: expect.arrayContaining(['--suppress', 'CT001=cachetenant/batch/*', '--suppress', 'SN005']) as string[] },
  },
  {
    name: "upstream's gate: any WARN fails",
    namespace: SERVER_NS,
    values: { failOn: 'warn' },
    want: { annotations: HELM_TEST },
    flags: { '--fail-on': 'warn' },
  },
  {
    name: 'a server endpoint, a longer timeout and margin',
    namespace: SERVER_NS,
    values: { serverEndpoint: 'inference-cache-server.inference-cache-system.svc:9090', timeoutSeconds: 90, activeDeadlineMarginSeconds: 15 },
    want: { activeDeadlineSeconds: 105 },
    flags: { '--server-endpoint': 'inference-cache-server.inference-cache-system.svc:9090', '--timeout': '90s' },
  },
  {
    name: 'an audience and lifetime of its own',
    namespace: SERVER_NS,
    values: { token: { audience: 'cache.example.com/controller', expirationSeconds: 3600 } },
    want: { tokenAudience: 'cache.example.com/controller', tokenExpirationSeconds: 3600, tokenFile: TOKEN_FILE },
    flags: { '--snapshot-token-file': TOKEN_FILE },
  },
  {
    name: 'other controller labels',
    namespace: SERVER_NS,
    values: { controller: { labels: { 'app.kubernetes.io/name': 'cache', 'app.kubernetes.io/component': 'manager', tier: 'control' }, serviceAccountName: 'inference-cache-controller-manager' } },
    want: { labels: expect.objectContaining({ 'app.kubernetes.io/name': 'cache', 'app.kubernetes.io/component': 'manager', tier: 'control' }) as Record<string, string> },
  },
  {
    name: 'an image by digest',
    namespace: SERVER_NS,
    values: { image: { repository: 'registry.example/doctor', tag: '9.9.9', digest: `sha256:${'ab'.repeat(32)}`, pullPolicy: 'Always' } },
    want: { image: `registry.example/doctor@sha256:${'ab'.repeat(32)}` },
  },
  {
    name: 'an image by tag',
    namespace: SERVER_NS,
    values: { image: { repository: 'registry.example/doctor', tag: '9.9.9', digest: '', pullPolicy: 'IfNotPresent' } },
    want: { image: 'registry.example/doctor:9.9.9' },
  },
];

/** The doctor pods of a rendering: the test pod first when there is one, then the after-deploy pod. */
function doctorPods(objects: readonly KubeObject[]): PodObject[] {
  const pods = objects.filter((o) => o.kind === 'Pod') as PodObject[];
  const deploy = (pod: PodObject) => (pod.metadata.name.endsWith('-deploy') ? 1 : 0);
  return pods.sort((a, b) => deploy(a) - deploy(b));
}

/** A pod volume that comes from a Secret (PodSpec types only the volumes every rendering has). */
interface SecretVolume {
  readonly name: string;
  readonly secret?: { secretName?: string; items?: { key: string; path: string }[]; optional?: boolean; defaultMode?: number };
}

/** The Secret volumes of a pod. */
function secretVolumes(pod: PodObject): SecretVolume[] {
  return ((pod.spec.volumes ?? []) as SecretVolume[]).filter((v) => v.secret !== undefined);
}

/** The first doctor pod of a rendering. */
function doctorPod(objects: readonly KubeObject[]): PodObject {
  const [pod] = doctorPods(objects);
  if (pod === undefined) throw new Error('no Pod rendered');
  return pod;
}

/** Properties every rendering of the pod keeps, whatever the values. */
function checkInvariants(pod: PodObject): void {
  const facts = podFacts(pod);
  const { spec } = pod;
  const [container] = spec.containers;
  expect(facts.args.slice(0, 3)).toEqual(['doctor', '-o', 'json']);
  expect(facts.flag('--snapshot-token-file')).toBe(facts.tokenFile);
  expect(facts.tokenFile).toBeDefined();
  expect(container?.volumeMounts?.every((m) => m.readOnly === true)).toBe(true);
  expect(Object.keys(facts.labels)).not.toContain('pod-template-hash');
  expect(spec.readinessGates).toEqual([{ conditionType: 'inferencecache.io/never-ready' }]);
  expect(spec.restartPolicy).toBe('Never');
  // A DNS lookup that is never answered ends in a second per name tried, not the resolver's minutes.
  expect(spec.dnsConfig?.options).toEqual([
    { name: 'timeout', value: '1' },
    { name: 'attempts', value: '1' },
  ]);
  const timeout = Number(/^(\d+)s$/.exec(facts.flag('--timeout') ?? '')?.[1]);
  const wait = Number(/^(\d+)s$/.exec(facts.flag('--wait') ?? '0s')?.[1]);
  expect(facts.activeDeadlineSeconds).toBeGreaterThan(timeout + wait);
  expect(facts.activeDeadlineSeconds).toBeLessThanOrEqual(timeout + wait + 120);
  expect(spec.automountServiceAccountToken).toBe(true);
  expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } });
  expect(container?.securityContext).toMatchObject({
    runAsNonRoot: true,
    runAsUser: 65532,
    runAsGroup: 65532,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  });
  expect(container?.resources?.['requests']).toBeDefined();
  expect(container?.resources?.['limits']?.['memory']).toBeDefined();
  expect(container?.terminationMessagePath).toBe('/dev/termination-log');
  expect(container?.terminationMessagePolicy).toBe('File');
  expect(container?.env).toEqual(
    expect.arrayContaining([
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ]),
  );
  const podinfo = spec.volumes?.find((v) => v.downwardAPI !== undefined);
  expect(podinfo?.downwardAPI?.items).toEqual([{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }]);
  expect(container?.volumeMounts).toContainEqual({ name: podinfo?.name, mountPath: '/etc/podinfo', readOnly: true });
}

for (const helm of helmBinaries()) {
  const skip = skipReason(helm);
  describe.skipIf(skip !== '')(`chart rendered by ${helm.name}${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
    describe.each(cases)('$name', (c) => {
      const objects = () => helmTemplate(helm, { namespace: c.namespace ?? 'default', ...(c.values === undefined ? {} : { values: c.values }) });

      it('renders the pod the mode asks for', () => {
        const rendered = objects();
        const pod = doctorPod(rendered);
        const facts = podFacts(pod);
        const { flag: _flag, ...plain } = facts;
        expect(plain).toMatchObject(c.want);
        for (const [flag, value] of Object.entries(c.flags ?? {})) expect(facts.flag(flag)).toBe(value);
        for (const key of c.noAnnotations ?? []) expect(facts.annotations).not.toHaveProperty([key]);
        if (c.serviceAccounts !== undefined) {
          expect(rendered.filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata.name)).toEqual(c.serviceAccounts);
        }
        const pods = doctorPods(rendered);
        expect(pods).toHaveLength(c.deploy === undefined ? 1 : 2);
        if (c.deploy !== undefined) {
          const deploy = podFacts(pods[1] as PodObject);
          const { flags, ...want } = c.deploy;
          const { flag: _deployFlag, ...deployPlain } = deploy;
          expect(deployPlain).toMatchObject({ name: `${facts.name}-deploy`, ...want });
          for (const [flag, value] of Object.entries(flags ?? {})) expect(deploy.flag(flag)).toBe(value);
          const waitless = (args: readonly string[]) => args.filter((a) => a !== '--wait' && a !== '--quiet' && !/^\d+s$/.test(a));
          expect(waitless(deploy.args)).toEqual(waitless(facts.args));
          // With a wait, no progress lines: they would land inside the JSON report in the pod's log.
          expect(deploy.args.includes('--quiet')).toBe(deploy.args.includes('--wait'));
        }
        for (const each of pods) checkInvariants(each);
      });

      it('binds the read-only role to the identity the pod runs as, in the pod\'s namespace', () => {
        const rendered = objects();
        const pod = podFacts(doctorPod(rendered));
        const binding = only(rendered, 'ClusterRoleBinding') as KubeObject & { subjects: unknown[]; roleRef: { name: string } };
        expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: pod.serviceAccount, namespace: pod.namespace }]);
        expect(binding.roleRef.name).toBe(only(rendered, 'ClusterRole').metadata.name);
        for (const sa of rendered.filter((o) => o.kind === 'ServiceAccount')) expect(sa.metadata.namespace).toBe(pod.namespace);
      });
    });

    it('always carries the controller labels by default', () => {
      const pod = podFacts(doctorPod(helmTemplate(helm, { namespace: SERVER_NS })));
      expect(pod.labels).toMatchObject(CONTROLLER_LABELS);
    });

    it('passes scheduling and pull settings through', () => {
      const values = {
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['infra'] }] }] } } },
        imagePullSecrets: [{ name: 'pull-creds' }],
        // Helm merges maps with the defaults: null removes the default CPU limit.
        resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { cpu: null, memory: '200Mi' } },
      };
      const { spec } = doctorPod(helmTemplate(helm, { namespace: SERVER_NS, values }));
      expect(spec.nodeSelector).toEqual(values.nodeSelector);
      expect(spec.tolerations).toEqual(values.tolerations);
      expect(spec.affinity).toEqual(values.affinity);
      expect(spec.imagePullSecrets).toEqual(values.imagePullSecrets);
      expect(spec.containers[0]?.resources).toEqual({ requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '200Mi' } });
    });

    it('leaves scheduling and pull settings out when none are given', () => {
      const { spec } = doctorPod(helmTemplate(helm, { namespace: SERVER_NS }));
      for (const key of ['nodeSelector', 'tolerations', 'affinity', 'imagePullSecrets'] as const) expect(spec).not.toHaveProperty(key);
    });

    describe('TLS on the server\'s gRPC port', () => {
      const pods = (values: Values) => doctorPods(helmTemplate(helm, { namespace: SERVER_NS, values: { hooks: EVERY_HOOK, ...values } }));
      const tlsVolume = (secretName: string, key: string): SecretVolume => ({
        name: 'server-tls',
        secret: { secretName, items: [{ key, path: 'ca.crt' }], optional: true, defaultMode: 0o444 },
      });

      it('mounts only the CA key of the default Secret, read-only, and passes the flags, in every hook pod', () => {
        const rendered = pods({ serverTLS: { enabled: true } });
        expect(rendered.map((p) => p.metadata.name)).toEqual(['doctor-inferencecache-doctor', 'doctor-inferencecache-doctor-deploy']);
        for (const pod of rendered) {
          expect(secretVolumes(pod)).toEqual([tlsVolume('inference-cache-server-tls', 'ca.crt')]);
          expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({ name: 'server-tls', mountPath: TLS_DIR, readOnly: true });
          const facts = podFacts(pod);
          expect(facts.flag('--server-tls')).toBe('on');
          expect(facts.flag('--server-ca-file')).toBe(`${TLS_DIR}/ca.crt`);
          for (const flag of TLS_FLAGS) expect(facts.args.filter((a) => a === flag).length).toBeLessThanOrEqual(1);
          for (const flag of ['--server-name', '--server-insecure-skip-verify', '--server-cert-file', '--server-key-file']) expect(facts.args).not.toContain(flag);
          checkInvariants(pod);
        }
      });

      it('lets the doctor (uid 65532, not root) read the CA file', () => {
        for (const pod of pods({ serverTLS: { enabled: true } })) {
          const mode = secretVolumes(pod)[0]?.secret?.defaultMode ?? 0o644;
          const fsGroup = pod.spec.securityContext?.['fsGroup'];
          // The kubelet makes a Secret volume's files root-owned and, with fsGroup, group-owned by it.
          expect((mode & 0o004) !== 0 || ((mode & 0o040) !== 0 && fsGroup === 65532)).toBe(true);
          expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
        }
      });

      it('takes another Secret, key and server name', () => {
        const values = {
          serverEndpoint: '10.96.0.20:9090',
          serverTLS: { enabled: true, secretName: 'cache-grpc-ca', caKey: 'bundle.pem', serverName: 'inference-cache-server.inference-cache-system.svc' },
        };
        for (const pod of pods(values)) {
          expect(secretVolumes(pod)).toEqual([tlsVolume('cache-grpc-ca', 'bundle.pem')]);
          const facts = podFacts(pod);
          expect(facts.flag('--server-ca-file')).toBe(`${TLS_DIR}/ca.crt`);
          expect(facts.flag('--server-name')).toBe('inference-cache-server.inference-cache-system.svc');
          expect(facts.flag('--server-endpoint')).toBe('10.96.0.20:9090');
        }
      });

      it('changes nothing in the pods when disabled, whatever else serverTLS holds', () => {
        const disabled = pods({ serverTLS: { enabled: false, secretName: 'cache-grpc-ca', caKey: 'bundle.pem', serverName: 'cache.example.internal' } });
        expect(disabled).toEqual(pods({}));
        for (const pod of disabled) {
          expect(secretVolumes(pod)).toEqual([]);
          expect(pod.spec.volumes?.map((v) => v.name)).not.toContain('server-tls');
          expect(pod.spec.containers[0]?.volumeMounts?.map((m) => m.mountPath)).not.toContain(TLS_DIR);
          for (const flag of TLS_FLAGS) expect(podFacts(pod).args).not.toContain(flag);
        }
      });

      it('adds no RBAC: a volume, not an API read', () => {
        for (const rbac of [{ create: true, pullSecretNames: [] }, { create: true, pullSecretNames: ['regcred'] }]) {
          const objects = (enabled: boolean) => helmTemplate(helm, { namespace: SERVER_NS, values: { rbac, serverTLS: { enabled } } });
          const notPods = (enabled: boolean) => objects(enabled).filter((o) => o.kind !== 'Pod');
          expect(notPods(true)).toEqual(notPods(false));
          const { rules } = only(objects(true), 'ClusterRole') as unknown as { rules: PolicyRule[] };
          const secretRules = rules.filter((r) => r.resources?.includes('secrets'));
          expect(secretRules.flatMap((r) => r.resourceNames ?? [])).toEqual(rbac.pullSecretNames);
          expect(secretRules.every((r) => r.resourceNames !== undefined && r.verbs?.join() === 'get')).toBe(true);
        }
      });
    });

    it('creates no RBAC when rbac.create is off', () => {
      const kinds = helmTemplate(helm, { namespace: SERVER_NS, values: { rbac: { create: false } } }).map((o) => o.kind);
      expect(kinds).toEqual(['Pod']);
    });

    it('gives each release namespace its own cluster-scoped names', () => {
      const names = (ns: string) => helmTemplate(helm, { namespace: ns }).filter((o) => o.kind.startsWith('Cluster')).map((o) => o.metadata.name);
      expect(names('a')).not.toEqual(names('b'));
    });
  });
}
