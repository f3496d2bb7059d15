import { PULL_SECRET_KEYS, type PullSecretLookup } from '../cluster/kinds/secret.ts';
import {
  MAX_PULL_SECRETS_PER_OBJECT,
  pullSecretPlan,
  secretKey,
  type PullSecretOverflow,
  type PullSecretRef,
} from '../cluster/state/pull-secret-refs.ts';

import { goQuote } from '../go/quote.ts';
import type { Finding } from '../report/finding.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import { listSome, quoteSome } from './helpers.ts';
import { registryOf } from './image-reference.ts';
import { type Pod, isTerminated } from '../cluster/kinds/pod.ts';

const CODES = {
  API001,
  IP001: {
    status: 'WARN',
    meaning: 'An image pull secret named by a pod of the install or its ServiceAccount does not exist.',
    hint: 'Create the secret in that namespace (kubectl create secret docker-registry …) or remove the reference; a private registry refuses pulls without it.',
    fix: '1. Create the secret in the namespace the finding names: kubectl -n <namespace> create secret docker-registry <name> --docker-server=<registry> --docker-username=<user> --docker-password=<password>. 2. Or, if no private registry needs it, remove its name from imagePullSecrets in the pod template or the ServiceAccount that the finding says names it. 3. Pods already waiting on their image retry by themselves once the secret exists.',
  },
  IP002: {
    status: 'WARN',
    meaning: 'An image pull secret has a type the kubelet does not take registry credentials from.',
    hint: 'Recreate the secret with type kubernetes.io/dockerconfigjson (kubectl create secret docker-registry does this).',
    fix: "1. Check the secret's type: kubectl -n <namespace> get secret <name> -o jsonpath='{.type}'; the kubelet takes registry credentials only from kubernetes.io/dockerconfigjson, or the legacy kubernetes.io/dockercfg. 2. Delete it and create it again with the right type: kubectl -n <namespace> create secret docker-registry <name> --docker-server=<registry> --docker-username=<user> --docker-password=<password>.",
  },
  IP003: {
    status: 'WARN',
    meaning: 'An image pull secret lacks its credentials key, is not valid JSON, or has no auths object.',
    hint: 'Recreate the secret from a working registry login (kubectl create secret docker-registry, or --from-file=.dockerconfigjson=config.json).',
    fix: '1. Log in to the registry where a login works (docker login or podman login writes a config.json). 2. Recreate the secret from it: kubectl -n <namespace> delete secret <name>, then kubectl -n <namespace> create secret docker-registry <name> --from-file=.dockerconfigjson=<path to config.json>. 3. The file must hold an auths object with an entry per registry: a config.json that only names a credential helper (credsStore) gives the kubelet nothing.',
  },
  IP004: {
    status: 'WARN',
    meaning: 'A container of the install waits in ImagePullBackOff or ErrImagePull.',
    hint: "Read the registry's message in the finding: a wrong image name or tag, missing credentials, or a registry the node cannot reach.",
    fix: "1. Read the registry's answer in the finding, or kubectl -n <namespace> describe pod <name> (Events). 2. Not found or manifest unknown: correct the image name or tag in the workload. Unauthorized or denied: give the pod a pull secret for that registry (see the IP001 to IP003 findings). Timeout or no such host: the node cannot reach the registry; check its DNS, proxy or egress, or in an air-gapped cluster mirror the image to a registry the nodes reach. 3. For the managed remote tier, spec.remoteStorage.redis.image sets the image. The kubelet retries on its own once the cause is gone.",
  },
  IP005: {
    status: 'INFO',
    meaning: 'An image pull secret could not be read (e.g. forbidden), so it was not verified.',
    hint: "List the secret's name in the chart's rbac.pullSecretNames to let the doctor read it by name (only its type and shape are kept).",
    fix: "1. The doctor reads pull secrets only by name: add this one's name to the chart's rbac.pullSecretNames (helm upgrade <release> <chart> --reuse-values --set rbac.pullSecretNames={<name>}) and run again; only its type and shape are kept, never its content. 2. Or check it by hand: kubectl -n <namespace> get secret <name> -o jsonpath='{.type}'.",
  },
  IP006: {
    status: 'OK',
    meaning: 'An image pull secret exists and holds well-formed registry credentials.',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: the pull secret exists and holds well-formed registry credentials. Renew it before the credentials in it expire at the registry.',
  },
  IP007: {
    status: 'INFO',
    meaning: `A pod of the install or its ServiceAccount names more than ${MAX_PULL_SECRETS_PER_OBJECT} image pull secrets; the doctor reads the first ${MAX_PULL_SECRETS_PER_OBJECT} of each, so the others (unless another object names them) were not verified.`,
    hint: 'Remove the pull secrets the pod or ServiceAccount does not use (the kubelet needs one per private registry); the finding names some of those left unverified.',
    fix: `1. Look at what the pod or ServiceAccount names: kubectl -n <namespace> get serviceaccount <name> -o jsonpath='{.imagePullSecrets}' (or the pod's spec.imagePullSecrets). 2. Remove the pull secrets it does not use: the kubelet needs one per private registry the pod pulls from. 3. The doctor verifies at most ${MAX_PULL_SECRETS_PER_OBJECT} of one object; the finding names some of those left unverified.`,
  },
} as const satisfies Record<string, CodeDeclaration>;

/** The waiting reasons of a container whose image could not be pulled. */
export const PULL_FAILURE_REASONS: ReadonlySet<string> = new Set(['ImagePullBackOff', 'ErrImagePull']);

/** How many referrers a message names before it says "and N more". */
const NAMED_REFERRERS = 3;

/**
 * How many containers of one pod waiting on their image get an IP004 each. A pod has a handful; one
 * with hundreds would otherwise give hundreds of findings, so the others share one more IP004.
 */
export const MAX_WAITING_CONTAINERS_PER_POD = 16;

/** How many names a finding about the objects beyond a bound quotes before it says "and N more". */
const NAMED_BEYOND = 5;
/** The longest name quoted whole there: a Secret name has at most 253 characters, a container name 63. */
const MAX_QUOTED_NAME = 253;

function namedBy(ref: PullSecretRef): string {
  return `named by ${listSome(ref.referrers, NAMED_REFERRERS, (referrer) => referrer)}`;
}

function registries(n: number): string {
  return `${n} registr${n === 1 ? 'y' : 'ies'}`;
}

function judgeSecret(emit: EmitFor<typeof CODES>, ref: PullSecretRef, lookup: PullSecretLookup | undefined): Finding {
  const resource = `secret/${ref.namespace}/${ref.name}`;
  const by = namedBy(ref);
  if (lookup === undefined) return emit('IP005', resource, `the pull secret was not read, so it could not be verified (${by})`);
  switch (lookup.kind) {
    case 'not-found':
      return emit(
        'IP001',
        resource,
        `the pull secret does not exist in namespace ${goQuote(ref.namespace)}; the kubelet pulls without these credentials, which a private registry refuses (${by})`,
      );
    case 'unknown': {
      const why = lookup.status === 403 ? 'the doctor may not get it' : 'reading it failed';
      return emit(
        'IP005',
        resource,
        `whether the pull secret exists and is well-formed could not be verified: ${why}: ${lookup.error} (${by})`,
      );
    }
    case 'found':
      break;
  }
  const { type, content } = lookup;
  const expected = Object.keys(PULL_SECRET_KEYS).join(' or ');
  switch (content.kind) {
    case 'not-applicable':
      return emit(
        'IP002',
        resource,
        `the pull secret has type ${goQuote(type)}; the kubelet takes registry credentials only from ${expected}, so it ignores this one (${by})`,
      );
    case 'no-key':
      return emit('IP003', resource, `the ${type} secret has no ${content.key} key, so it carries no registry credentials (${by})`);
    case 'not-json':
      return emit(
        'IP003',
        resource,
        `the ${content.key} key of the ${type} secret is not valid JSON, so the kubelet cannot use it (${by})`,
      );
    case 'not-object':
      return emit(
        'IP003',
        resource,
        `the ${content.key} key of the ${type} secret is JSON but not an object, so it names no registry (${by})`,
      );
    case 'no-auths':
      return emit('IP003', resource, `the ${content.key} key of the ${type} secret has no "auths" object, so it names no registry (${by})`);
    case 'credentials': {
      const legacy = type === 'kubernetes.io/dockercfg' ? ' (the legacy format, which the kubelet still reads)' : '';
      return emit(
        'IP006',
        resource,
        `the pull secret is a well-formed ${type}${legacy} with credentials for ${registries(content.registries)} (${by})`,
      );
    }
  }
}

/** IP007: the pull secrets a pod or ServiceAccount names beyond what the doctor reads of one object. */
function judgeOverflow(emit: EmitFor<typeof CODES>, overflow: PullSecretOverflow): Finding {
  const { referrer, named, unread } = overflow;
  const who = referrer.startsWith('pod/') ? 'the pod' : 'the ServiceAccount';
  return emit(
    'IP007',
    referrer,
    `${who} names ${named} image pull secrets, and the doctor reads at most ${MAX_PULL_SECRETS_PER_OBJECT} of one pod or ServiceAccount, so ${unread.length} ${unread.length === 1 ? 'was' : 'were'} not verified: ${quoteSome(unread, NAMED_BEYOND, MAX_QUOTED_NAME)}`,
  );
}

/**
 * The pull secrets the kubelet hands to the pulls of `pod`: those of its spec (admission has already
 * added its ServiceAccount's there), or that it names none, for IP004 to say beside the failure.
 */
function pullSecretsSaid(pod: Pod): string {
  const names = pod.imagePullSecrets ?? [];
  if (names.length === 0) return 'the pod names no image pull secret, so the kubelet pulls without credentials';
  return `the kubelet pulls with the pod's image pull secret${names.length === 1 ? '' : 's'} ${quoteSome(names, NAMED_BEYOND, MAX_QUOTED_NAME)}`;
}

/** IP004 for each container of `pod` waiting on its image, the first few one by one and the rest in one. */
function judgeWaiting(emit: EmitFor<typeof CODES>, pod: Pod): Finding[] {
  const resource = `pod/${pod.namespace}/${pod.name}`;
  const pulling = (pod.waiting ?? []).filter((w) => PULL_FAILURE_REASONS.has(w.reason));
  const secrets = pulling.length === 0 ? '' : pullSecretsSaid(pod);
  const findings = pulling.slice(0, MAX_WAITING_CONTAINERS_PER_POD).map((w) => {
    const said = w.message === '' ? 'no message' : goQuote(w.message);
    const image = `image ${goQuote(w.image)} from registry ${goQuote(registryOf(w.image))}`;
    return emit('IP004', resource, `container ${goQuote(w.container)} (${image}) is waiting in ${w.reason}: ${said}; ${secrets}`);
  });
  const rest = pulling.slice(MAX_WAITING_CONTAINERS_PER_POD);
  if (rest.length === 0) return findings;
  const more = rest.length === 1 ? '1 more container of the pod is' : `${rest.length} more containers of the pod are`;
  const names = quoteSome(
    rest.map((w) => w.container),
    NAMED_BEYOND,
    MAX_QUOTED_NAME,
  );
  const tail = `waiting in ImagePullBackOff or ErrImagePull besides the ${MAX_WAITING_CONTAINERS_PER_POD} above: ${names}`;
  findings.push(emit('IP004', resource, `${more} ${tail}`));
  return findings;
}

/**
 * ImagePullability: every pull secret that the install's live pods name, directly or through their
 * ServiceAccount, exists and holds a credentials document the kubelet can use; and no container of
 * those pods waits in ImagePullBackOff or ErrImagePull. Secrets are read by name and judged by type
 * and shape only: no message carries any of their content. A secret the doctor may not read is
 * reported as unverified (INFO), not skipped. What one object can multiply is bounded: at most
 * {@link MAX_PULL_SECRETS_PER_OBJECT} pull secrets of one pod or ServiceAccount are read and judged
 * (the others are counted in one IP007), and at most {@link MAX_WAITING_CONTAINERS_PER_POD} waiting
 * containers of one pod get an IP004 each (the others share one more).
 */
export const imagePullability = defineCheck({
  name: 'ImagePullability',
  codes: CODES,
  reads: { installPods: 'items', pullSecrets: 'read', serviceAccounts: 'read' },
  probes: {},
  judge({ state }, emit) {
    const { installPods, serviceAccounts, pullSecrets } = state;
    const live = installPods.filter(({ pod }) => !isTerminated(pod));
    if (live.length === 0) return [];
    const findings: Finding[] = [];
    if (!serviceAccounts.ok) {
      findings.push(
        emit(
          'API001',
          'ServiceAccount',
          `listing ServiceAccount objects failed, so pull secrets named by ServiceAccounts were not checked: ${serviceAccounts.error}`,
        ),
      );
    }
    const { refs, overflows } = pullSecretPlan(installPods, serviceAccounts.ok ? serviceAccounts.items : []);
    for (const ref of refs) findings.push(judgeSecret(emit, ref, pullSecrets.get(secretKey(ref.namespace, ref.name))));
    for (const overflow of overflows) findings.push(judgeOverflow(emit, overflow));
    for (const { pod } of live) findings.push(...judgeWaiting(emit, pod));
    return findings;
  },
});
