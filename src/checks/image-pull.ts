import { isTerminated } from '../cluster/install.ts';
import { PULL_SECRET_KEYS } from '../cluster/project-pull-secret.ts';
import { pullSecretRefs, secretKey, type PullSecretRef } from '../cluster/pull-secret-refs.ts';
import type { PullSecretLookup } from '../cluster/state.ts';
import { goQuote } from '../go/quote.ts';
import type { Finding } from '../report/finding.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';

const CODES = {
  API001,
  IP001: {
    status: 'WARN',
    meaning: 'An image pull secret named by a pod of the install or its ServiceAccount does not exist.',
    hint: 'Create the secret in that namespace (kubectl create secret docker-registry …) or remove the reference; a private registry refuses pulls without it.',
  },
  IP002: {
    status: 'WARN',
    meaning: 'An image pull secret has a type the kubelet does not take registry credentials from.',
    hint: 'Recreate the secret with type kubernetes.io/dockerconfigjson (kubectl create secret docker-registry does this).',
  },
  IP003: {
    status: 'WARN',
    meaning: 'An image pull secret lacks its credentials key, is not valid JSON, or has no auths object.',
    hint: 'Recreate the secret from a working registry login (kubectl create secret docker-registry, or --from-file=.dockerconfigjson=config.json).',
  },
  IP004: {
    status: 'WARN',
    meaning: 'A container of the install waits in ImagePullBackOff or ErrImagePull.',
    hint: "Read the registry's message in the finding: a wrong image name or tag, missing credentials, or a registry the node cannot reach.",
  },
  IP005: {
    status: 'INFO',
    meaning: 'An image pull secret could not be read (e.g. forbidden), so it was not verified.',
    hint: "List the secret's name in the chart's rbac.pullSecretNames to let the doctor read it by name (only its type and shape are kept).",
  },
  IP006: { status: 'OK', meaning: 'An image pull secret exists and holds well-formed registry credentials.', hint: 'Nothing to do.' },
} as const satisfies Record<string, CodeDeclaration>;

/** The waiting reasons of a container whose image could not be pulled. */
export const PULL_FAILURE_REASONS: ReadonlySet<string> = new Set(['ImagePullBackOff', 'ErrImagePull']);

/** How many referrers a message names before it says "and N more". */
const NAMED_REFERRERS = 3;

function namedBy(ref: PullSecretRef): string {
  const shown = ref.referrers.slice(0, NAMED_REFERRERS).join(', ');
  const more = ref.referrers.length - NAMED_REFERRERS;
  return `named by ${shown}${more > 0 ? ` and ${more} more` : ''}`;
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

/**
 * ImagePullability: every pull secret that the install's live pods name, directly or through their
 * ServiceAccount, exists and holds a credentials document the kubelet can use; and no container of
 * those pods waits in ImagePullBackOff or ErrImagePull. Secrets are read by name and judged by type
 * and shape only: no message carries any of their content. A secret the doctor may not read is
 * reported as unverified (INFO), not skipped.
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
    const refs = pullSecretRefs(installPods, serviceAccounts.ok ? serviceAccounts.items : []);
    for (const ref of refs) findings.push(judgeSecret(emit, ref, pullSecrets.get(secretKey(ref.namespace, ref.name))));
    for (const { pod } of live) {
      for (const w of pod.waiting ?? []) {
        if (!PULL_FAILURE_REASONS.has(w.reason)) continue;
        const said = w.message === '' ? 'no message' : goQuote(w.message);
        findings.push(
          emit(
            'IP004',
            `pod/${pod.namespace}/${pod.name}`,
            `container ${goQuote(w.container)} (image ${goQuote(w.image)}) is waiting in ${w.reason}: ${said}`,
          ),
        );
      }
    }
    return findings;
  },
});
