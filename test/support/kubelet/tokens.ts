/**
 * Projected ServiceAccount tokens: minted with TokenRequest for the pod's ServiceAccount, bound to
 * the pod (so the token dies with it), with the audience and lifetime the pod spec asks for, and
 * rotated at 80 % of that lifetime as the kubelet's token manager does. Whatever TokenRequest refuses
 * (a missing ServiceAccount, a lifetime under 10 minutes, a ServiceAccount that is not the pod's)
 * fails the mount exactly as it fails a kubelet's.
 *
 * @module
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeError } from '../../../src/text/errors.ts';
import type { KubeApi } from './api.ts';
import type { Pod, ServiceAccountTokenProjection } from './types.ts';

/** Default `expirationSeconds` of a projected token (the API's default). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

/** Writes a file so that readers never see it half written. */
export function writeFileAtomic(file: string, data: string | Buffer, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode });
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, file);
}

/** Asks TokenRequest for a token of the pod's ServiceAccount, bound to the pod. */
export async function requestPodToken(api: KubeApi, pod: Pod, source: ServiceAccountTokenProjection): Promise<string> {
  const namespace = pod.metadata.namespace ?? 'default';
  const serviceAccount = pod.spec.serviceAccountName ?? 'default';
  const answer = await api.post<{ status?: { token?: string } }>(
    `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        audiences: source.audience === undefined || source.audience === '' ? [] : [source.audience],
        expirationSeconds: source.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid },
      },
    },
  );
  const token = answer.status?.token ?? '';
  if (token === '') throw new Error('TokenRequest returned no token');
  return token;
}

/**
 * Keeps a token file fresh: re-mints it at 80 % of its lifetime (retrying every 10 s on failure)
 * until the returned function is called.
 */
export function rotateToken(
  api: KubeApi,
  pod: Pod,
  source: ServiceAccountTokenProjection,
  file: string,
  mode: number,
  log: (line: string) => void,
): () => void {
  const lifetimeMs = (source.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS) * 1000;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      requestPodToken(api, pod, source).then(
        (token) => {
          writeFileAtomic(file, token, mode);
          schedule(lifetimeMs * 0.8);
        },
        (err: unknown) => {
          log(`token rotation for ${pod.metadata.namespace ?? ''}/${pod.metadata.name} failed: ${describeError(err)}`);
          schedule(10_000);
        },
      );
    }, ms);
    timer.unref();
  };
  schedule(lifetimeMs * 0.8);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
