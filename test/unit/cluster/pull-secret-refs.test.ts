// The pull secrets the install names: at most a fixed number from any one pod or ServiceAccount is
// read and judged, however many it lists, so the secret reads grow with the objects, never with what
// one of them holds; the rest are counted per object.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeApi } from '../../../src/cluster/transport/kube-api.ts';
import { gatherClusterState } from '../../../src/cluster/gather/gather.ts';
import { MAX_PULL_SECRETS_PER_OBJECT, pullSecretPlan, pullSecretRefs } from '../../../src/cluster/state/pull-secret-refs.ts';
import type { InstallPod } from '../../../src/cluster/state/state.ts';
import { startLoopbackApi, type LoopbackApi } from '../../support/loopback-api.ts';
import type { Pod } from '../../../src/cluster/kinds/pod.ts';

const BOUND = MAX_PULL_SECRETS_PER_OBJECT;
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const workload = (name: string, o: Partial<Pod> = {}): InstallPod => ({
  pod: { namespace: 'ns', name, uid: name, labels: {}, annotations: {}, phase: 'Running', ...o },
  role: 'workload',
});
const account = (name: string, imagePullSecrets: readonly string[]) => ({ namespace: 'ns', name, uid: name, imagePullSecrets });

describe('the pull secrets to read', () => {
  it(`takes at most ${BOUND} from a pod and from a ServiceAccount, and counts the others once per object`, () => {
    const pods = [
      workload('a', { imagePullSecrets: names('pod', 10_000), serviceAccountName: 'wide' }),
      workload('b', { serviceAccountName: 'wide' }),
    ];
    const plan = pullSecretPlan(pods, [account('wide', names('sa', 10_000))]);
    expect(plan.refs.map((r) => r.name)).toEqual([...names('pod', BOUND), ...names('sa', BOUND)]);
    expect(plan.refs.find((r) => r.name === 'sa-0')?.referrers).toEqual(['serviceaccount/ns/wide']);
    expect(plan.overflows.map(({ referrer, named, unread }) => [referrer, named, unread.length, unread[0]])).toEqual([
      ['pod/ns/a', 10_000, 10_000 - BOUND, `pod-${BOUND}`],
      ['serviceaccount/ns/wide', 10_000, 10_000 - BOUND, `sa-${BOUND}`],
    ]);
  });

  it(`takes all of ${BOUND} and reports no object beyond the bound`, () => {
    const plan = pullSecretPlan([workload('a', { imagePullSecrets: names('pod', BOUND) })], []);
    expect([plan.refs.length, plan.overflows]).toEqual([BOUND, []]);
  });

  it('counts a name listed twice once, and does not call a name unread that another object has within its bound', () => {
    const listed = names('s', BOUND + 2);
    const plan = pullSecretPlan(
      [workload('wide', { imagePullSecrets: [...listed, ...listed] }), workload('narrow', { imagePullSecrets: [`s-${BOUND + 1}`] })],
      [],
    );
    expect(plan.refs.map((r) => r.name)).toEqual([...names('s', BOUND), `s-${BOUND + 1}`]);
    expect(plan.overflows).toEqual([{ referrer: 'pod/ns/wide', named: BOUND + 2, unread: [`s-${BOUND}`] }]);
  });

  it('pullSecretRefs is the plan’s refs, skipping finished pods', () => {
    const pods = [workload('a', { imagePullSecrets: names('s', 40) }), workload('done', { imagePullSecrets: ['old'], phase: 'Succeeded' })];
    expect(pullSecretRefs(pods, [])).toEqual(pullSecretPlan(pods, []).refs);
    expect(pullSecretRefs(pods, []).map((r) => r.name)).not.toContain('old');
  });
});

describe('the gathering reads no more secrets than the bound allows', () => {
  let server: LoopbackApi;
  let api: KubeApi;
  const secretReads: string[] = [];
  const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const install = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'redis' };

  beforeAll(async () => {
    server = await startLoopbackApi((req, res) => {
      const path = new URL(req.url ?? '', 'http://x').pathname;
      if (path === '/api/v1/pods') {
        const spec = { serviceAccountName: 'wide', imagePullSecrets: names('pod', 10_000).map((name) => ({ name })) };
        const pod = { metadata: { namespace: 'ns', name: 'cache', uid: 'c', labels: install }, spec, status: { phase: 'Running' } };
        json(res, { kind: 'PodList', metadata: {}, items: [pod] });
      } else if (path === '/api/v1/serviceaccounts') {
        const sa = {
          metadata: { namespace: 'ns', name: 'wide', uid: 'w' },
          imagePullSecrets: names('sa', 10_000).map((name) => ({ name })),
        };
        json(res, { kind: 'ServiceAccountList', metadata: {}, items: [sa] });
      } else if (path.startsWith('/api/v1/namespaces/ns/secrets/')) {
        secretReads.push(path);
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","code":404}');
      } else {
        res.writeHead(404).end();
      }
    });
    api = server.api;
  });
  afterAll(() => server.close());

  it(`a pod and its ServiceAccount naming 10000 pull secrets each cost ${2 * BOUND} secret reads`, async () => {
    const state = await gatherClusterState(api, { reads: new Set(['pullSecrets'] as const), namespace: '' }, AbortSignal.timeout(30_000));
    expect(secretReads).toHaveLength(2 * BOUND);
    expect(state.pullSecrets?.size).toBe(2 * BOUND);
    expect(secretReads).toContain(`/api/v1/namespaces/ns/secrets/pod-${BOUND - 1}`);
    expect(secretReads).not.toContain(`/api/v1/namespaces/ns/secrets/pod-${BOUND}`);
  });
});
