/**
 * Everything decided before a container process starts, in the kubelet's order: the image (an entry
 * of the image map, or ErrImagePull), the security check it can make without a runtime
 * (`runAsNonRoot` against the image's user), the environment, the volume mounts and the
 * termination-message file at their in-pod paths, and the argv.
 *
 * @module
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { KubeApi } from './api.ts';
import type { ContainerSpec } from './container.ts';
import { dnsEnv, podDnsConfig } from './dns.ts';
import { ContainerConfigError, containerEnv } from './env.ts';
import { containerArgv, resolveImage, type ImageMap } from './images.ts';
import { containerMounts, type PodVolumes } from './volumes.ts';
import type { Container, Pod } from './types.ts';

/** The image has no entry in the image map (reason `ErrImagePull`). */
export class ImagePullError extends Error {
  override readonly name = 'ImagePullError';
}

/** What the stand-in knows that every container start needs. */
export interface ContainerConfigContext {
  readonly api: KubeApi;
  readonly images: ImageMap;
  readonly hosts: Readonly<Record<string, string>>;
  readonly clusterDomain: string;
  readonly apiHost: string;
  readonly apiPort: string;
  readonly hostIP: string;
}

/** Inputs of one start. */
export interface StartRequest {
  readonly pod: Pod;
  readonly container: Container;
  readonly podIP: string;
  readonly volumes: PodVolumes;
  /** Directory for this container's files on the host: its termination log, working directory, overlays (recreated). */
  readonly root: string;
  readonly logFile: string;
}

/** The kubelet's `format.Pod`: `name_namespace(uid)`. */
function formatPod(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;
}

/** Builds the process spec, or throws ImagePullError / ContainerConfigError / MountError. */
export async function configureContainer(ctx: ContainerConfigContext, req: StartRequest): Promise<ContainerSpec> {
  const { pod, container } = req;
  const imageRef = container.image ?? '';
  const image = resolveImage(ctx.images, imageRef);
  if (image === undefined) {
    throw new ImagePullError(`Failed to pull image "${imageRef}": the kubelet stand-in has no image mapping for it`);
  }
  const runAsNonRoot = container.securityContext?.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot ?? false;
  const uid = container.securityContext?.runAsUser ?? pod.spec.securityContext?.runAsUser ?? image.user ?? 0;
  if (runAsNonRoot && uid === 0) {
    throw new ContainerConfigError(
      `container has runAsNonRoot and image will run as root (pod: "${formatPod(pod)}", container: ${container.name})`,
    );
  }
  const env = await containerEnv({
    api: ctx.api,
    pod,
    container,
    image,
    apiHost: ctx.apiHost,
    apiPort: ctx.apiPort,
    runtime: { hostIP: ctx.hostIP, podIP: req.podIP },
  });
  const { mounts, terminationLog } = containerMounts(req.root, container, req.volumes);
  const argv = containerArgv(container, image, env);
  env['HOME'] ??= req.root;
  const dns = podDnsConfig(pod, ctx.hosts, ctx.clusterDomain);
  if (dns !== undefined) Object.assign(env, dnsEnv(dns, env['NODE_OPTIONS']));
  const cwd = path.join(req.root, 'cwd', container.workingDir ?? '/');
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(path.dirname(req.logFile), { recursive: true });
  return {
    argv,
    env,
    cwd,
    logFile: req.logFile,
    mounts,
    podFsDir: path.join(req.root, 'pod-fs'),
    terminationLog,
    fallbackToLogsOnError: container.terminationMessagePolicy === 'FallbackToLogsOnError',
  };
}
