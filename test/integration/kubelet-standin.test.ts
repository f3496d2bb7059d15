// The kubelet stand-in (test/support/kubelet/) against a real control plane of its own, with
// kube-controller-manager (node lifecycle, EndpointSlices, kube-root-ca.crt) and kube-apiserver
// verifying the stand-in's serving certificate and authenticating to it: pods run to completion,
// their logs come back through pods/log, projected tokens pass TokenReview, failures carry exit
// codes and termination messages, readiness gates keep pods out of ready endpoints, Service names
// resolve in the child processes, and deletion kills the process and removes the pod.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ApiException, AuthenticationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, missingBinaries, resolveBinaries, startControlPlane, type ControlPlane } from '../support/controlplane/controlplane.ts';
import { uniqueName } from '../support/cluster-objects.ts';
import { PROJECT_ROOT, createNamespace } from '../support/fixtures.ts';
import { ApiError, connectApi, type KubeApi } from '../support/kubelet/api.ts';
import { startReferenceServer, type ReferenceServer } from '../support/reference-server/server.ts';
import {
  createKubeletPki,
  doctorImage,
  kubeletApiServerArgs,
  startKubeletStandin,
  type KubeletStandin,
} from '../support/kubelet/standin.ts';
import type { Container, Pod, PodSpec } from '../support/kubelet/types.ts';
import { prepareVolumes } from '../support/kubelet/volumes.ts';

const missing = missingBinaries(resolveBinaries(), true);
const skip = missing.length > 0 && process.env['CI'] !== 'true';
const skipReason = skip ? ` (skipped: control-plane binaries missing: ${missing.join(', ')}; run hack/build-controlplane.sh)` : '';

const TEST_IMAGE = 'example/standin-test:1';
const TEST_IMAGE_SCRIPT = resolve(PROJECT_ROOT, 'test/support/kubelet/test-image.ts');
const DOCTOR_IMAGE = 'example/inferencecache-doctor:test';
const SERVER_ADDRESS = '127.0.0.57';
const SERVER_NAME = 'inference-cache-server.inference-cache-system.svc';
const CONTROLLER_AUDIENCE = 'inferencecache.io/controller';

/** A pod with one container `main`; `extra` is merged into the spec. */
function podManifest(name: string, container: Omit<Container, 'name'>, extra: Partial<PodSpec> = {}, labels?: Record<string, string>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(labels === undefined ? {} : { labels }) },
    spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 5, containers: [{ name: 'main', ...container }], ...extra },
  };
}

const sleepy = { image: TEST_IMAGE, args: ['sleep'] };

function terminated(pod: Pod): NonNullable<NonNullable<Pod['status']>['containerStatuses']>[number]['state']['terminated'] {
  return pod.status?.containerStatuses?.[0]?.state.terminated;
}

function condition(pod: Pod, type: string): { status: string; reason?: string; message?: string } | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

describe.skipIf(skip)(`kubelet stand-in${skipReason}`, () => {
  let cp: ControlPlane | undefined;
  let standin: KubeletStandin | undefined;
  let server: ReferenceServer | undefined;
  let api: KubeApi;
  const kc = new KubeConfig();
  const pkiDir = mkdtempSync(join(tmpdir(), 'kubelet-standin-pki-'));
  const lines: string[] = [];

  const core = (): CoreV1Api => kc.makeApiClient(CoreV1Api);
  const createPod = (ns: string, pod: Pod): Promise<Pod> => api.post<Pod>(`/api/v1/namespaces/${ns}/pods`, pod);
  const podLog = (ns: string, name: string, opts: { tailLines?: number; follow?: boolean } = {}): Promise<string> =>
    core().readNamespacedPodLog({ namespace: ns, name, container: 'main', ...opts });
  const events = async (ns: string, name: string): Promise<{ reason: string; message: string }[]> => {
    const list = await api.get<{ items: { reason: string; message: string; involvedObject: { name: string } }[] }>(
      `/api/v1/namespaces/${ns}/events`,
    );
    return list.items.filter((e) => e.involvedObject.name === name).map((e) => ({ reason: e.reason, message: e.message }));
  };
  const newNamespace = async (prefix: string): Promise<string> => {
    const ns = uniqueName(prefix);
    await createNamespace(kc, ns);
    return ns;
  };
  const stand = (): KubeletStandin => {
    if (standin === undefined) throw new Error('stand-in not started');
    return standin;
  };

  beforeAll(async () => {
    const pki = createKubeletPki(pkiDir);
    cp = await startControlPlane({ startControllerManager: true, extraApiServerArgs: kubeletApiServerArgs(pki) });
    kc.loadFromFile(cp.kubeconfigPath);
    api = await connectApi(cp.kubeconfigPath);
    server = await startReferenceServer({ host: SERVER_ADDRESS, insecureDisableAuth: true });
    standin = await startKubeletStandin({
      kubeconfig: cp.kubeconfigPath,
      apiServer: cp.server,
      caFile: cp.caFile,
      nodeName: 'standin-node',
      images: {
        '*inferencecache-doctor': doctorImage(PROJECT_ROOT),
        'example/standin-test': { entrypoint: [process.execPath, TEST_IMAGE_SCRIPT], user: 65532 },
        'example/rootful': [process.execPath, TEST_IMAGE_SCRIPT],
      },
      hosts: { 'inference-cache-server.inference-cache-system': SERVER_ADDRESS },
      podCIDR: '10.244.0.0/24',
      tls: pki,
      log: (line) => lines.push(line),
    });
  });

  afterAll(async () => {
    await standin?.stop();
    await server?.stop();
    api?.close();
    await cp?.stop();
    rmSync(pkiDir, { recursive: true, force: true });
    if (lines.length > 0) console.info(`[kubelet-standin]\n${lines.join('\n')}`);
  });

  it('registers a Ready node with its kubelet endpoint and renews its Lease', async () => {
    const node = await api.get<{
      status: {
        conditions: { type: string; status: string }[];
        addresses: unknown[];
        daemonEndpoints: { kubeletEndpoint: { Port: number } };
      };
    }>('/api/v1/nodes/standin-node');
    expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status.addresses).toEqual([{ type: 'InternalIP', address: '127.0.0.1' }]);
    expect(node.status.daemonEndpoints.kubeletEndpoint.Port).toBe(stand().kubeletPort);
    const lease = await api.get<{ spec: { holderIdentity: string; renewTime: string } }>(
      '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/standin-node',
    );
    expect(lease.spec.holderIdentity).toBe('standin-node');
    expect(Date.now() - Date.parse(lease.spec.renewTime)).toBeLessThan(20_000);
  });

  it('runs the doctor bundle to Succeeded and serves its log through pods/log', async () => {
    const ns = await newNamespace('standin-version');
    await createPod(ns, podManifest('version', { image: DOCTOR_IMAGE, args: ['--version'] }));
    const pod = await stand().waitForPod(ns, 'version', 'Succeeded');
    expect(pod.spec.nodeName).toBe('standin-node');
    expect(terminated(pod)).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(condition(pod, 'PodScheduled')?.status).toBe('True');
    expect(condition(pod, 'Initialized')?.status).toBe('True');
    expect(condition(pod, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    expect(pod.status?.hostIP).toBe('127.0.0.1');
    const log = await podLog(ns, 'version');
    expect(log).toMatch(/^inferencecache version \S+/);
    expect(await podLog(ns, 'version', { follow: true, tailLines: 1 })).toBe(log);
    const reasons = (await events(ns, 'version')).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['Scheduled', 'Pulled', 'Created', 'Started']));
  });

  it('mints projected tokens by TokenRequest with the audience and expiry of the pod spec', async () => {
    const ns = await newNamespace('standin-token');
    await api.post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'controller' },
    });
    const mountPath = '/var/run/secrets/inferencecache.io/controller-token';
    const tokenPod = (name: string, expirationSeconds: number): Pod =>
      podManifest(
        name,
        { ...sleepy, volumeMounts: [{ name: 'controller-token', mountPath, readOnly: true }] },
        {
          serviceAccountName: 'controller',
          volumes: [
            {
              name: 'controller-token',
              projected: { sources: [{ serviceAccountToken: { audience: CONTROLLER_AUDIENCE, expirationSeconds, path: 'token' } }] },
            },
          ],
        },
      );
    await createPod(ns, tokenPod('token', 600));
    const pod = await stand().waitForPod(ns, 'token', 'Running');
    const volumes = join(stand().podDir(ns, 'token') ?? '', 'volumes');
    const token = readFileSync(join(volumes, 'controller-token', 'token'), 'utf8');

    const auth = kc.makeApiClient(AuthenticationV1Api);
    const review = await auth.createTokenReview({ body: { spec: { token, audiences: [CONTROLLER_AUDIENCE] } } });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.username).toBe(`system:serviceaccount:${ns}:controller`);
    expect(review.status?.user?.extra?.['authentication.kubernetes.io/pod-name']).toEqual(['token']);
    expect(review.status?.user?.extra?.['authentication.kubernetes.io/pod-uid']).toEqual([pod.metadata.uid]);
    const apiAudience = await auth.createTokenReview({ body: { spec: { token } } });
    expect(apiAudience.status?.authenticated).toBeFalsy();

    // the default ServiceAccount mount, as ServiceAccount admission projects it
    const saDir = join(volumes, readdirSync(volumes).find((name) => name.startsWith('kube-api-access-')) ?? 'kube-api-access-missing');
    expect(readFileSync(join(saDir, 'namespace'), 'utf8')).toBe(ns);
    expect(readFileSync(join(saDir, 'ca.crt'), 'utf8')).toBe(readFileSync(cp?.caFile ?? '', 'utf8'));
    const saReview = await auth.createTokenReview({ body: { spec: { token: readFileSync(join(saDir, 'token'), 'utf8') } } });
    expect(saReview.status?.user?.username).toBe(`system:serviceaccount:${ns}:controller`);

    // under 10 minutes: the API refuses the pod, and TokenRequest refuses the kubelet's request
    const refused = await createPod(ns, tokenPod('short', 300)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(422);
    expect((refused as ApiError).message).toContain('may not specify a duration less than 10 minutes');
    const short = structuredClone(pod);
    const source = short.spec.volumes?.find((v) => v.name === 'controller-token')?.projected?.sources?.[0]?.serviceAccountToken;
    if (source !== undefined) source.expirationSeconds = 300;
    const podDir = mkdtempSync(join(tmpdir(), 'standin-short-'));
    try {
      await expect(prepareVolumes({ api, pod: short, podDir, log: () => undefined })).rejects.toThrow(
        /MountVolume\.SetUp failed for volume "controller-token" : failed to fetch token: .*less than 10 minutes/,
      );
    } finally {
      rmSync(podDir, { recursive: true, force: true });
    }
  });

  it('keeps a pod whose ServiceAccount disappeared Pending with FailedMount events', async () => {
    const ns = await newNamespace('standin-nosa');
    await api.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'doomed' } });
    await createPod(ns, podManifest('nosa', sleepy, { serviceAccountName: 'doomed', schedulingGates: [{ name: 'example.com/hold' }] }));
    await api.delete(`/api/v1/namespaces/${ns}/serviceaccounts/doomed`);
    await api.patch(`/api/v1/namespaces/${ns}/pods/nosa`, { spec: { schedulingGates: [] } }, 'merge');
    await stand().waitForPod(ns, 'nosa', (p) => p.spec.nodeName === 'standin-node');
    await expect
      .poll(async () => (await events(ns, 'nosa')).find((e) => e.reason === 'FailedMount')?.message, { timeout: 20_000 })
      .toMatch(/^MountVolume\.SetUp failed for volume "kube-api-access-\w+" : failed to fetch token: .*serviceaccounts "doomed" not found/);
    const pod = await api.get<Pod>(`/api/v1/namespaces/${ns}/pods/nosa`);
    expect(pod.status?.phase).toBe('Pending');
    expect(pod.status?.containerStatuses?.[0]?.state.waiting?.reason).toBe('ContainerCreating');
  });

  it('reports a failing container as Failed with its exit code and termination message', async () => {
    const ns = await newNamespace('standin-fail');
    await createPod(
      ns,
      podManifest('doctor-bogus', {
        image: DOCTOR_IMAGE,
        args: ['doctor', '--output', 'bogus'],
        terminationMessagePolicy: 'FallbackToLogsOnError',
      }),
    );
    await createPod(ns, podManifest('message', { image: TEST_IMAGE, args: ['exit', '3', 'summary: 1 error'] }));
    const bogus = await stand().waitForPod(ns, 'doctor-bogus', 'Failed');
    expect(terminated(bogus)).toMatchObject({
      exitCode: 3,
      reason: 'Error',
      message: 'error: invalid output format "bogus" (want one of: human, json, table, junit)\n',
    });
    const withMessage = await stand().waitForPod(ns, 'message', 'Failed');
    expect(terminated(withMessage)).toMatchObject({ exitCode: 3, reason: 'Error', message: 'summary: 1 error' });
    expect(condition(withMessage, 'Ready')).toMatchObject({ status: 'False', reason: 'PodFailed' });
    expect(await podLog(ns, 'message')).toBe('exiting with 3\n');
  });

  it('never makes a pod with an unset readiness gate Ready, and EndpointSlices list it not ready', async () => {
    const ns = await newNamespace('standin-gate');
    const labels = { app: 'gated' };
    await api.post(`/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'gated' },
      spec: { selector: labels, ports: [{ name: 'http', port: 8081 }] },
    });
    await createPod(ns, podManifest('gated', sleepy, { readinessGates: [{ conditionType: 'example.com/never' }] }, labels));
    await createPod(ns, podManifest('plain', sleepy, {}, labels));
    const gated = await stand().waitForPod(ns, 'gated', 'Running');
    const plain = await stand().waitForPod(ns, 'plain', (p) => condition(p, 'Ready')?.status === 'True');
    expect(condition(gated, 'ContainersReady')?.status).toBe('True');
    expect(condition(gated, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'corresponding condition of pod readiness gate "example.com/never" does not exist.',
    });
    type Slice = { endpoints?: { addresses: string[]; conditions: { ready?: boolean }; targetRef?: { name: string } }[] };
    const readiness = async (): Promise<Record<string, boolean | undefined>> => {
      const slices = await api.get<{ items: Slice[] }>(
        `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dgated`,
      );
      const out: Record<string, boolean | undefined> = {};
      for (const ep of slices.items.flatMap((s) => s.endpoints ?? [])) out[ep.targetRef?.name ?? ''] = ep.conditions.ready;
      return out;
    };
    await expect.poll(readiness, { timeout: 30_000 }).toEqual({ gated: false, plain: true });
    expect(gated.status?.podIP).not.toBe(plain.status?.podIP);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(condition(await api.get<Pod>(`/api/v1/namespaces/${ns}/pods/gated`), 'Ready')?.status).toBe('False');

    // whoever owns the gate sets it: the stand-in re-evaluates Ready
    await api.patch(
      `/api/v1/namespaces/${ns}/pods/gated/status`,
      { status: { conditions: [{ type: 'example.com/never', status: 'True' }] } },
      'strategic',
    );
    await stand().waitForPod(ns, 'gated', (p) => condition(p, 'Ready')?.status === 'True', 15_000);
    await expect.poll(readiness, { timeout: 30_000 }).toEqual({ gated: true, plain: true });
  });

  it('resolves Service names for the process through dns.lookup, grpc-js and undici, and leaves other names alone', async () => {
    const ref = server as ReferenceServer;
    const ns = 'inference-cache-system';
    await createNamespace(kc, ns);
    await createPod(
      ns,
      podManifest('resolve', { image: TEST_IMAGE, args: ['resolve', SERVER_NAME, String(ref.grpcPort), String(ref.httpPort)] }),
    );
    await createPod(
      ns,
      podManifest('names', {
        image: TEST_IMAGE,
        args: [
          'lookup',
          'inference-cache-server',
          'inference-cache-server.inference-cache-system',
          `${SERVER_NAME}.cluster.local`,
          `${SERVER_NAME}.cluster.local.`,
          'other.inference-cache-system.svc.cluster.local',
        ],
      }),
    );
    const other = await newNamespace('standin-dns');
    await createPod(
      other,
      podManifest('names', {
        image: TEST_IMAGE,
        args: ['lookup', 'inference-cache-server.inference-cache-system', `${SERVER_NAME}.cluster.local`],
      }),
    );

    await stand().waitForPod(ns, 'resolve', 'Succeeded', 30_000);
    expect(JSON.parse(await podLog(ns, 'resolve'))).toEqual({
      lookup: SERVER_ADDRESS,
      promisesLookupAll: [SERVER_ADDRESS],
      grpcHealth: 'SERVING',
      grpcChannel: 'ready',
      undici: 'HTTP 200',
      localhost: '127.0.0.1',
      unknownService: 'error ENOTFOUND',
    });
    await stand().waitForPod(ns, 'names', 'Succeeded');
    expect(JSON.parse(await podLog(ns, 'names'))).toEqual({
      'inference-cache-server': SERVER_ADDRESS,
      'inference-cache-server.inference-cache-system': SERVER_ADDRESS,
      [`${SERVER_NAME}.cluster.local`]: SERVER_ADDRESS,
      [`${SERVER_NAME}.cluster.local.`]: SERVER_ADDRESS,
      'other.inference-cache-system.svc.cluster.local': 'error ENOTFOUND',
    });
    await stand().waitForPod(other, 'names', 'Succeeded');
    expect(JSON.parse(await podLog(other, 'names'))).toEqual({
      'inference-cache-server.inference-cache-system': SERVER_ADDRESS,
      [`${SERVER_NAME}.cluster.local`]: SERVER_ADDRESS,
    });
  });

  it('fails a pod past activeDeadlineSeconds with DeadlineExceeded', async () => {
    const ns = await newNamespace('standin-deadline');
    await createPod(ns, podManifest('deadline', sleepy, { activeDeadlineSeconds: 3, terminationGracePeriodSeconds: 1 }));
    const pod = await stand().waitForPod(ns, 'deadline', 'Failed', 20_000);
    expect(pod.status).toMatchObject({
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(terminated(pod)?.exitCode).toBe(143);
  });

  it('kills the process when the pod is deleted, then removes the pod', async () => {
    const ns = await newNamespace('standin-delete');
    await createPod(ns, podManifest('doomed', sleepy));
    await stand().waitForPod(ns, 'doomed', 'Running');
    const pid = stand().containerPids(ns, 'doomed').get('main');
    expect(pid).toBeTypeOf('number');
    await expect.poll(() => podLog(ns, 'doomed')).toBe('started\n');
    const following = podLog(ns, 'doomed', { follow: true });
    await core().deleteNamespacedPod({ namespace: ns, name: 'doomed' });
    await stand().waitForPodGone(ns, 'doomed', 20_000);
    expect(await following).toBe('started\n');
    expect(isAlive(pid as number)).toBe(false);
    expect((await events(ns, 'doomed')).map((e) => e.reason)).toContain('Killing');
  });

  it('builds the environment and volumes of a container as a kubelet does', async () => {
    const ns = await newNamespace('standin-env');
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg' },
      data: { greeting: 'hello', 'app.conf': 'x=1\n' },
    });
    await api.post(`/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sec' },
      data: { password: Buffer.from('s3cret').toString('base64') },
    });
    const pod = podManifest(
      'env',
      {
        image: TEST_IMAGE,
        args: [
          'env',
          '/etc/podinfo/labels',
          '/etc/podinfo/annotations',
          '/etc/app/app.conf',
          '/etc/secret/password',
          '/dev/termination-log',
          '/scratch',
        ],
        env: [
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'greeting' } } },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'sec', key: 'password' } } },
          { name: 'COMBINED', value: '$(GREETING)-$(POD_NAME)-$(UNSET)-$$(GREETING)' },
        ],
        envFrom: [{ prefix: 'CM_', configMapRef: { name: 'cfg' } }],
        volumeMounts: [
          { name: 'podinfo', mountPath: '/etc/podinfo' },
          { name: 'cfg', mountPath: '/etc/app/app.conf', subPath: 'app.conf' },
          { name: 'sec', mountPath: '/etc/secret' },
          { name: 'scratch', mountPath: '/scratch' },
        ],
      },
      {
        volumes: [
          {
            name: 'podinfo',
            downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
              ],
            },
          },
          { name: 'cfg', configMap: { name: 'cfg' } },
          { name: 'sec', secret: { secretName: 'sec' } },
          { name: 'scratch', emptyDir: {} },
        ],
      },
      { tier: 'b', app: 'a' },
    );
    pod.metadata.annotations = { note: 'a "quoted"\tvalue' };
    await createPod(ns, pod);
    const done = await stand().waitForPod(ns, 'env', 'Succeeded');
    const { env, files } = JSON.parse(await podLog(ns, 'env')) as { env: Record<string, string>; files: Record<string, string> };
    const apiUrl = new URL(cp?.server ?? '');
    expect(env).toMatchObject({
      POD_NAME: 'env',
      APP: 'a',
      NODE: 'standin-node',
      POD_IP: done.status?.podIP,
      GREETING: 'hello',
      PASSWORD: 's3cret',
      COMBINED: 'hello-env-$(UNSET)-$(GREETING)',
      CM_greeting: 'hello',
      KUBERNETES_SERVICE_HOST: apiUrl.hostname,
      KUBERNETES_SERVICE_PORT: apiUrl.port,
      HOSTNAME: 'env',
    });
    expect(files).toEqual({
      '/etc/podinfo/labels': 'app="a"\ntier="b"',
      '/etc/podinfo/annotations': 'note="a \\"quoted\\"\\tvalue"',
      '/etc/app/app.conf': 'x=1\n',
      '/etc/secret/password': 's3cret',
      '/dev/termination-log': '',
      '/scratch': '(directory)',
    });
    expect(existsSync('/etc/podinfo')).toBe(false);
  });

  it('reports what it cannot configure as CreateContainerConfigError', async () => {
    const ns = await newNamespace('standin-config');
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: {} });
    await createPod(
      ns,
      podManifest('nokey', { ...sleepy, env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'nope' } } }] }),
    );
    await createPod(ns, podManifest('root', { image: 'example/rootful:1', args: ['sleep'], securityContext: { runAsNonRoot: true } }));
    const waiting = (p: Pod) => p.status?.containerStatuses?.[0]?.state.waiting;
    const nokey = await stand().waitForPod(ns, 'nokey', (p) => waiting(p)?.reason === 'CreateContainerConfigError');
    expect(waiting(nokey)?.message).toBe(`couldn't find key nope in ConfigMap ${ns}/cfg`);
    const root = await stand().waitForPod(ns, 'root', (p) => waiting(p)?.reason === 'CreateContainerConfigError');
    expect(waiting(root)?.message).toMatch(
      /^container has runAsNonRoot and image will run as root \(pod: "root_standin-config-\w+\(.+\)", container: main\)$/,
    );
    expect(nokey.status?.phase).toBe('Pending');
  });

  it('reports an image it cannot run as ErrImagePull', async () => {
    const ns = await newNamespace('standin-image');
    await createPod(ns, podManifest('unknown', { image: 'example/unknown:1' }));
    const pod = await stand().waitForPod(ns, 'unknown', (p) => p.status?.containerStatuses?.[0]?.state.waiting?.reason === 'ErrImagePull');
    expect(pod.status?.phase).toBe('Pending');
    const err = await podLog(ns, 'unknown').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiException);
    expect(String((err as ApiException<unknown>).body)).toContain('is waiting to start');
  });
});
