/** ImagePullability (IP): pull secrets of the install's pods and ServiceAccounts, and pull failures. */
import { MAX_WAITING_CONTAINERS_PER_POD, imagePullability } from '../../../src/checks/image-pull.ts';
import { MAX_PULL_SECRETS_PER_OBJECT } from '../../../src/cluster/state/pull-secret-refs.ts';

import { failed, given, ok, pod, type Case, type CheckTable, type Expected } from './fixtures.ts';
import { VALID_DOCKERCONFIGJSON, WORKLOAD_LABELS, live, secrets, serviceAccount } from './install-fixtures.ts';
import type { ContainerWaiting } from '../../../src/cluster/kinds/pod.ts';
import type { PullSecretLookup } from '../../../src/cluster/kinds/secret.ts';

/** A live install pod `ns1/<name>` naming the given pull secrets. */
function puller(name: string, pullSecrets: readonly string[], o: Parameters<typeof pod>[1] = {}) {
  return pod(name, { labels: { ...WORKLOAD_LABELS }, phase: 'Running', imagePullSecrets: pullSecrets, ...o });
}

const JSON_TYPE = 'kubernetes.io/dockerconfigjson';
const found = (type: string, content: Extract<PullSecretLookup, { kind: 'found' }>['content']): PullSecretLookup => ({
  kind: 'found',
  type,
  content,
});

/** One pod `p` naming secret `s`, whose lookup is given. */
function oneSecret(name: string, lookup: PullSecretLookup, expected: Case['expected']): Case {
  return { name, input: live({ pods: ok([puller('p', ['s'])]), pullSecrets: secrets({ s: lookup }) }), expected };
}

const S = 'secret/ns1/s';

/** `n` names: `<prefix>00`, `<prefix>01`, … */
const numbered = (prefix: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(from + i).padStart(2, '0')}`);
/** Lookups of every name given, all well-formed (as though each were read). */
const validAll = (names: readonly string[]) => secrets(Object.fromEntries(names.map((name) => [name, VALID_DOCKERCONFIGJSON])));
/** IP006 for each name given. */
const verified = (names: readonly string[]): Expected[] => names.map((name) => ['IP006', `secret/ns1/${name}`]);
/** `n` containers waiting on their image. */
const backingOff = (n: number): ContainerWaiting[] =>
  numbered('c', n).map((container) => ({
    container,
    image: `registry.test/${container}:v1`,
    reason: 'ImagePullBackOff',
    message: 'Back-off',
  }));
const BOUND = MAX_PULL_SECRETS_PER_OBJECT;

export const imagePullCases: readonly Case[] = [
  oneSecret('missing → IP001', { kind: 'not-found' }, [['IP001', S, ['does not exist in namespace "ns1"', 'named by pod/ns1/p']]]),
  oneSecret('wrong type (Opaque) → IP002', found('Opaque', { kind: 'not-applicable' }), [
    ['IP002', S, ['"Opaque"', 'kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg']],
  ]),
  oneSecret('no .dockerconfigjson key → IP003', found(JSON_TYPE, { kind: 'no-key', key: '.dockerconfigjson' }), [
    ['IP003', S, ['no .dockerconfigjson key']],
  ]),
  oneSecret('invalid JSON → IP003', found(JSON_TYPE, { kind: 'not-json', key: '.dockerconfigjson' }), [['IP003', S, ['not valid JSON']]]),
  oneSecret('JSON but not an object → IP003', found(JSON_TYPE, { kind: 'not-object', key: '.dockerconfigjson' }), [
    ['IP003', S, ['not an object']],
  ]),
  oneSecret('no auths object → IP003', found(JSON_TYPE, { kind: 'no-auths', key: '.dockerconfigjson' }), [
    ['IP003', S, ['no "auths" object']],
  ]),
  oneSecret('valid → IP006', VALID_DOCKERCONFIGJSON, [
    ['IP006', S, ['well-formed kubernetes.io/dockerconfigjson', '1 registry'], ['legacy']],
  ]),
  oneSecret(
    'legacy kubernetes.io/dockercfg, well-formed → IP006 saying legacy',
    found('kubernetes.io/dockercfg', { kind: 'credentials', key: '.dockercfg', registries: 2 }),
    [['IP006', S, ['kubernetes.io/dockercfg', 'legacy', '2 registries']]],
  ),
  oneSecret('legacy kubernetes.io/dockercfg, not JSON → IP003', found('kubernetes.io/dockercfg', { kind: 'not-json', key: '.dockercfg' }), [
    ['IP003', S, ['.dockercfg']],
  ]),
  oneSecret('forbidden → IP005 saying what was not verified', { kind: 'unknown', status: 403, error: 'secrets "s" is forbidden' }, [
    ['IP005', S, ['could not be verified', 'may not get it', 'is forbidden']],
  ]),
  oneSecret('another read error → IP005', { kind: 'unknown', error: 'no answer before the deadline' }, [
    ['IP005', S, ['reading it failed', 'deadline']],
  ]),
  {
    name: 'ServiceAccount-level secrets count, named by the ServiceAccount',
    input: live({
      pods: ok([puller('p', [], { serviceAccountName: 'puller' })]),
      serviceAccounts: ok([serviceAccount('puller', ['sa-pull', 'sa-gone']), serviceAccount('other', ['not-mine'])]),
      pullSecrets: secrets({ 'sa-pull': VALID_DOCKERCONFIGJSON, 'sa-gone': { kind: 'not-found' } }),
    }),
    expected: [
      ['IP006', 'secret/ns1/sa-pull', ['serviceaccount/ns1/puller']],
      ['IP001', 'secret/ns1/sa-gone', ['serviceaccount/ns1/puller']],
    ],
  },
  {
    name: 'a pod that names no ServiceAccount runs as "default"',
    input: live({
      pods: ok([puller('p', [])]),
      serviceAccounts: ok([serviceAccount('default', ['d-pull'])]),
      pullSecrets: secrets({ 'd-pull': VALID_DOCKERCONFIGJSON }),
    }),
    expected: [['IP006', 'secret/ns1/d-pull', ['serviceaccount/ns1/default']]],
  },
  {
    name: 'each secret once, naming every referrer (a few, then a count)',
    input: live({
      pods: ok(['a', 'b', 'c', 'd', 'e'].map((n) => puller(n, ['shared']))),
      pullSecrets: secrets({ shared: VALID_DOCKERCONFIGJSON }),
    }),
    expected: [['IP006', 'secret/ns1/shared', ['pod/ns1/a, pod/ns1/b, pod/ns1/c and 2 more']]],
  },
  {
    name: 'ImagePullBackOff and ErrImagePull → IP004 with the message; other waiting reasons are not pull failures',
    input: live({
      pods: ok([
        puller('p', [], {
          waiting: [
            {
              container: 'engine',
              image: 'registry.test/engine:v1',
              reason: 'ImagePullBackOff',
              message: 'Back-off pulling image "registry.test/engine:v1"',
            },
            { container: 'init', image: 'registry.test/init:v1', reason: 'ErrImagePull', message: 'unauthorized: authentication required' },
            { container: 'side', image: 'registry.test/side:v1', reason: 'ContainerCreating', message: '' },
          ],
        }),
      ]),
    }),
    expected: [
      [
        'IP004',
        'pod/ns1/p',
        [
          '"engine"',
          'registry.test/engine:v1',
          'from registry "registry.test"',
          'ImagePullBackOff',
          'Back-off pulling image',
          'names no image pull secret',
        ],
      ],
      ['IP004', 'pod/ns1/p', ['"init"', 'ErrImagePull', 'authentication required']],
    ],
  },
  {
    name: 'IP004 names the pull secrets the kubelet pulled with, and the registry of the image (Docker Hub when none is written)',
    input: live({
      pods: ok([
        puller('p', ['regcred', 'backup'], {
          waiting: [{ container: 'engine', image: 'vllm/vllm:v1', reason: 'ErrImagePull', message: '401 Unauthorized' }],
        }),
      ]),
      pullSecrets: secrets({ regcred: VALID_DOCKERCONFIGJSON, backup: VALID_DOCKERCONFIGJSON }),
    }),
    expected: [
      ['IP006', 'secret/ns1/regcred', []],
      ['IP006', 'secret/ns1/backup', []],
      [
        'IP004',
        'pod/ns1/p',
        ['from registry "docker.io"', 'the kubelet pulls with the pod\'s image pull secrets "regcred", "backup"'],
        ['names no'],
      ],
    ],
  },
  {
    name: "a workload the controller runs for a backend (a managed Redis, labelled managed-by the controller) is the install's: IP004",
    input: live({
      pods: ok([
        pod('managed-5f47b7dcf7-x2x9q', {
          labels: { 'app.kubernetes.io/name': 'cachebackend', 'app.kubernetes.io/managed-by': 'inference-cache-controller' },
          phase: 'Pending',
          imagePullSecrets: ['regcred'],
          waiting: [{ container: 'redis', image: 'registry.test/library/redis:7', reason: 'ImagePullBackOff', message: 'not found' }],
        }),
        pod('other-managed', {
          labels: { 'app.kubernetes.io/managed-by': 'someone-else' },
          phase: 'Pending',
          waiting: [{ container: 'c', image: 'i', reason: 'ImagePullBackOff', message: 'm' }],
        }),
      ]),
      pullSecrets: secrets({ regcred: VALID_DOCKERCONFIGJSON }),
    }),
    expected: [
      ['IP006', 'secret/ns1/regcred', ['pod/ns1/managed-5f47b7dcf7-x2x9q']],
      ['IP004', 'pod/ns1/managed-5f47b7dcf7-x2x9q', ['"redis"', 'registry.test/library/redis:7', 'from registry "registry.test"']],
    ],
  },
  {
    name: 'pods outside the install and finished pods are not judged',
    input: live({
      pods: ok([
        pod('web', {
          phase: 'Running',
          imagePullSecrets: ['gone'],
          waiting: [{ container: 'c', image: 'i', reason: 'ImagePullBackOff', message: 'm' }],
        }),
        puller('old', ['gone'], { phase: 'Failed', waiting: [{ container: 'c', image: 'i', reason: 'ErrImagePull', message: 'm' }] }),
      ]),
      pullSecrets: secrets({ gone: { kind: 'not-found' } }),
    }),
    expected: [],
  },
  {
    name: 'ServiceAccounts read failed → API001 ServiceAccount, pod-level secrets still judged',
    input: live({
      pods: ok([puller('p', ['s'])]),
      serviceAccounts: failed('serviceaccounts is forbidden'),
      pullSecrets: secrets({ s: VALID_DOCKERCONFIGJSON }),
    }),
    expected: [
      ['API001', 'ServiceAccount', ['serviceaccounts is forbidden']],
      ['IP006', S],
    ],
  },
  {
    name: 'no install pod → nothing, even when the ServiceAccounts read failed',
    input: live({ serviceAccounts: failed('forbidden') }),
    expected: [],
  },
  {
    name: 'pods read failed → API001 Pod',
    input: live({ pods: failed('connection refused') }),
    expected: [['API001', 'Pod', ['connection refused']]],
  },

  // --- what one object can multiply: pull secrets per pod or ServiceAccount, waiting containers per pod
  {
    name: `a pod naming exactly ${BOUND} pull secrets → each judged, no IP007`,
    input: live({ pods: ok([puller('p', numbered('s', BOUND))]), pullSecrets: validAll(numbered('s', BOUND)) }),
    expected: verified(numbered('s', BOUND)),
  },
  {
    name: `a pod naming 40 → the first ${BOUND} judged, one IP007 naming a few of the other 24 and counting them`,
    input: live({ pods: ok([puller('p', numbered('s', 40))]), pullSecrets: validAll(numbered('s', 40)) }),
    expected: [
      ...verified(numbered('s', BOUND)),
      [
        'IP007',
        'pod/ns1/p',
        ['the pod names 40 image pull secrets', `at most ${BOUND}`, '24 were not verified: "s16", "s17", "s18", "s19", "s20" and 19 more'],
      ],
    ],
  },
  {
    name: 'a name listed twice counts once toward the bound',
    input: live({
      pods: ok([puller('p', [...numbered('s', BOUND), ...numbered('s', BOUND)])]),
      pullSecrets: validAll(numbered('s', BOUND)),
    }),
    expected: verified(numbered('s', BOUND)),
  },
  {
    name: 'a ServiceAccount naming 20, run as by two pods → the first 16 judged, one IP007 for the ServiceAccount',
    input: live({
      pods: ok([puller('a', [], { serviceAccountName: 'wide' }), puller('b', [], { serviceAccountName: 'wide' })]),
      serviceAccounts: ok([serviceAccount('wide', numbered('sa', 20))]),
      pullSecrets: validAll(numbered('sa', 20)),
    }),
    expected: [
      ...verified(numbered('sa', BOUND)),
      [
        'IP007',
        'serviceaccount/ns1/wide',
        ['the ServiceAccount names 20', '4 were not verified: "sa16", "sa17", "sa18", "sa19"'],
        ['more'],
      ],
    ],
  },
  {
    name: 'names beyond one pod’s bound that another pod names within its own are judged, and not called unverified',
    input: live({
      pods: ok([puller('wide', numbered('s', 18)), puller('narrow', numbered('s', 1, 17))]),
      pullSecrets: validAll(numbered('s', 18)),
    }),
    expected: [
      ...verified(numbered('s', BOUND)),
      ['IP006', 'secret/ns1/s17'],
      ['IP007', 'pod/ns1/wide', ['1 was not verified: "s16"'], ['"s17"']],
    ],
  },
  {
    name: 'every name beyond the bound judged through another pod → no IP007',
    input: live({
      pods: ok([puller('wide', numbered('s', 17)), puller('narrow', ['s16'])]),
      pullSecrets: validAll(numbered('s', 17)),
    }),
    expected: verified(numbered('s', 17)),
  },
  {
    name: `${MAX_WAITING_CONTAINERS_PER_POD} containers waiting on their image → an IP004 each, nothing more`,
    input: live({ pods: ok([puller('p', [], { waiting: backingOff(MAX_WAITING_CONTAINERS_PER_POD) })]) }),
    expected: numbered('c', MAX_WAITING_CONTAINERS_PER_POD).map((c): Expected => ['IP004', 'pod/ns1/p', [`"${c}"`], ['more containers']]),
  },
  {
    name: `40 containers waiting on their image → an IP004 each for the first ${MAX_WAITING_CONTAINERS_PER_POD}, one more for the other 24`,
    input: live({ pods: ok([puller('p', [], { waiting: backingOff(40) })]) }),
    expected: [
      ...numbered('c', MAX_WAITING_CONTAINERS_PER_POD).map((c): Expected => ['IP004', 'pod/ns1/p', [`"${c}"`]]),
      ['IP004', 'pod/ns1/p', ['24 more containers of the pod are waiting', '"c16", "c17", "c18", "c19", "c20" and 19 more']],
    ],
  },
  {
    name: 'containers waiting for another reason do not count toward the bound',
    input: live({
      pods: ok([
        puller('p', [], {
          waiting: [
            ...backingOff(MAX_WAITING_CONTAINERS_PER_POD),
            { container: 'side', image: 'registry.test/side:v1', reason: 'ContainerCreating', message: '' },
          ],
        }),
      ]),
    }),
    expected: numbered('c', MAX_WAITING_CONTAINERS_PER_POD).map((c): Expected => ['IP004', 'pod/ns1/p', [`"${c}"`]]),
  },
  { name: 'install pods without pull secrets → nothing', input: live({ pods: ok([puller('p', [])]) }), expected: [] },
  { name: 'pull secrets not gathered (offline input) → nothing', input: given({ pods: ok([puller('p', ['s'])]) }), expected: [] },
];

export const imagePullTable: CheckTable = { check: imagePullability, cases: imagePullCases };
