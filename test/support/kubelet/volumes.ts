/**
 * Pod volumes. Each volume is materialised once per pod under `<podDir>/volumes/<name>`; each
 * container start mounts them at their `mountPath`s (a `subPath` mounts a path inside the volume) in
 * the process's own mount namespace (support/pod-fs.ts), so the process reads its in-pod paths as it
 * would in a pod.
 *
 * Supported sources: `emptyDir`, `configMap`, `secret`, `downwardAPI`, and `projected` (with
 * `serviceAccountToken`, `configMap`, `secret`, `downwardAPI`). The default ServiceAccount mount is
 * nothing special: ServiceAccount admission turns it into a projected `kube-api-access-*` volume
 * (token, `kube-root-ca.crt`, namespace) when `automountServiceAccountToken` allows it. Failures are
 * `MountError`s carrying the kubelet's FailedMount wording.
 *
 * @module
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeError } from '../../../src/text/errors.ts';
import type { PodMounts } from '../pod-fs.ts';
import { isStatus, type KubeApi } from './api.ts';
import { FieldPathError, volumeFieldValue } from './fieldpath.ts';
import { requestPodToken, rotateToken, writeFileAtomic } from './tokens.ts';
import type { Container, DataObject, DownwardAPIVolumeFile, KeyToPath, Pod, Volume, VolumeProjection } from './types.ts';

/** A volume could not be set up; `message` is what the FailedMount event says. */
export class MountError extends Error {
  override readonly name = 'MountError';
  readonly volume: string;
  constructor(volume: string, detail: string) {
    super(`MountVolume.SetUp failed for volume "${volume}" : ${detail}`);
    this.volume = volume;
  }
}

/** Inputs of `prepareVolumes`. */
export interface VolumeContext {
  readonly api: KubeApi;
  readonly pod: Pod;
  readonly podDir: string;
  /** PEM of the cluster CA, published as `kube-root-ca.crt` when that ConfigMap is missing (no kcm). */
  readonly rootCa?: string | undefined;
  readonly log: (line: string) => void;
}

/** The materialised volumes of a pod. */
export interface PodVolumes {
  /** Volume name → its directory. */
  readonly dirs: ReadonlyMap<string, string>;
  /** Stops token rotation. */
  stop(): void;
}

const DEFAULT_MODE = 0o644;
const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

function writeItem(dir: string, rel: string, data: string | Buffer, mode: number): void {
  writeFileAtomic(path.join(dir, rel), data, mode);
}

async function readData(ctx: VolumeContext, kind: 'configmaps' | 'secrets', name: string): Promise<DataObject | null> {
  const namespace = ctx.pod.metadata.namespace ?? 'default';
  const get = async (): Promise<DataObject | null> => {
    try {
      return await ctx.api.get<DataObject>(`/api/v1/namespaces/${namespace}/${kind}/${name}`);
    } catch (err) {
      if (isStatus(err, 404)) return null;
      throw err;
    }
  };
  const found = await get();
  if (found !== null || kind !== 'configmaps' || name !== ROOT_CA_CONFIGMAP || ctx.rootCa === undefined) return found;
  // Without kube-controller-manager nobody publishes the cluster CA; do its root-ca-cert-publisher's job.
  try {
    await ctx.api.post(`/api/v1/namespaces/${namespace}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace },
      data: { 'ca.crt': ctx.rootCa },
    });
    ctx.log(`published ${namespace}/${ROOT_CA_CONFIGMAP}`);
  } catch (err) {
    if (!isStatus(err, 409)) throw err;
  }
  return get();
}

/** Writes a ConfigMap's or Secret's keys (all, or `items`) into `dir`. */
async function writeData(
  ctx: VolumeContext,
  kind: 'configmaps' | 'secrets',
  name: string,
  items: readonly KeyToPath[] | undefined,
  optional: boolean,
  dir: string,
  mode: number,
): Promise<void> {
  const obj = await readData(ctx, kind, name);
  const singular = kind === 'configmaps' ? 'configmap' : 'secret';
  if (obj === null) {
    if (optional) return;
    throw new Error(`${singular} "${name}" not found`);
  }
  const values = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(obj.data ?? {}))
    values.set(k, kind === 'secrets' ? Buffer.from(v, 'base64') : Buffer.from(v, 'utf8'));
  for (const [k, v] of Object.entries(obj.binaryData ?? {})) values.set(k, Buffer.from(v, 'base64'));
  const wanted: readonly KeyToPath[] = items ?? [...values.keys()].map((key) => ({ key, path: key }));
  for (const item of wanted) {
    const value = values.get(item.key);
    if (value === undefined) {
      if (optional) continue;
      throw new Error(`${singular} references non-existent ${singular === 'configmap' ? 'config' : 'secret'} key: ${item.key}`);
    }
    writeItem(dir, item.path, value, item.mode ?? mode);
  }
}

function writeDownward(pod: Pod, items: readonly DownwardAPIVolumeFile[], dir: string, mode: number): void {
  for (const item of items) {
    if (item.fieldRef === undefined) throw new Error(`downwardAPI item ${item.path}: only fieldRef is supported by the kubelet stand-in`);
    try {
      writeItem(dir, item.path, volumeFieldValue(pod, item.fieldRef.fieldPath), item.mode ?? mode);
    } catch (err) {
      throw err instanceof FieldPathError ? new Error(`downwardAPI item ${item.path}: ${err.message}`) : err;
    }
  }
}

async function writeProjection(
  ctx: VolumeContext,
  source: VolumeProjection,
  dir: string,
  mode: number,
  rotations: (() => void)[],
): Promise<void> {
  if (source.serviceAccountToken !== undefined) {
    const projection = source.serviceAccountToken;
    let token: string;
    try {
      token = await requestPodToken(ctx.api, ctx.pod, projection);
    } catch (err) {
      throw new Error(`failed to fetch token: ${describeError(err)}`, { cause: err });
    }
    const file = path.join(dir, projection.path);
    writeFileAtomic(file, token, mode);
    rotations.push(rotateToken(ctx.api, ctx.pod, projection, file, mode, ctx.log));
  } else if (source.configMap !== undefined) {
    await writeData(ctx, 'configmaps', source.configMap.name, source.configMap.items, source.configMap.optional === true, dir, mode);
  } else if (source.secret !== undefined) {
    await writeData(ctx, 'secrets', source.secret.name, source.secret.items, source.secret.optional === true, dir, mode);
  } else if (source.downwardAPI !== undefined) {
    writeDownward(ctx.pod, source.downwardAPI.items ?? [], dir, mode);
  } else {
    throw new Error(`projected source ${Object.keys(source).join(', ')} is not supported by the kubelet stand-in`);
  }
}

async function setUp(ctx: VolumeContext, volume: Volume, dir: string, rotations: (() => void)[]): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  if (volume.emptyDir !== undefined) return;
  if (volume.configMap !== undefined) {
    const cm = volume.configMap;
    return writeData(ctx, 'configmaps', cm.name, cm.items, cm.optional === true, dir, cm.defaultMode ?? DEFAULT_MODE);
  }
  if (volume.secret !== undefined) {
    const s = volume.secret;
    return writeData(ctx, 'secrets', s.secretName, s.items, s.optional === true, dir, s.defaultMode ?? DEFAULT_MODE);
  }
  if (volume.downwardAPI !== undefined)
    return writeDownward(ctx.pod, volume.downwardAPI.items ?? [], dir, volume.downwardAPI.defaultMode ?? DEFAULT_MODE);
  if (volume.projected !== undefined) {
    for (const source of volume.projected.sources ?? [])
      await writeProjection(ctx, source, dir, volume.projected.defaultMode ?? DEFAULT_MODE, rotations);
    return;
  }
  const kind = Object.keys(volume)
    .filter((k) => k !== 'name')
    .join(', ');
  throw new Error(`volume source ${kind} is not supported by the kubelet stand-in`);
}

/** Sets up every volume of the pod, or throws the first MountError (nothing keeps rotating then). */
export async function prepareVolumes(ctx: VolumeContext): Promise<PodVolumes> {
  const dirs = new Map<string, string>();
  const rotations: (() => void)[] = [];
  const stop = (): void => rotations.splice(0).forEach((f) => f());
  for (const volume of ctx.pod.spec.volumes ?? []) {
    const dir = path.join(ctx.podDir, 'volumes', volume.name);
    try {
      fs.rmSync(dir, { recursive: true, force: true });
      await setUp(ctx, volume, dir, rotations);
    } catch (err) {
      stop();
      throw new MountError(volume.name, describeError(err));
    }
    dirs.set(volume.name, dir);
  }
  return { dirs, stop };
}

/** What a container start mounts: in-pod path → host path, and the termination-message file's host path. */
export interface ContainerMounts {
  readonly mounts: PodMounts;
  readonly terminationLog: string;
}

/**
 * A container's mounts: each volume mount (a `subPath` mounts a path inside the volume) and the
 * termination-message file, an empty host file under `root` mounted at `terminationMessagePath`. The
 * process sees them at their in-pod paths (support/pod-fs.ts), nested mounts after their parents.
 */
export function containerMounts(root: string, container: Container, volumes: PodVolumes): ContainerMounts {
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const mounts: Record<string, string> = {};
  for (const mount of [...(container.volumeMounts ?? [])].sort((a, b) => a.mountPath.length - b.mountPath.length)) {
    const dir = volumes.dirs.get(mount.name);
    if (dir === undefined) throw new MountError(mount.name, `no volume "${mount.name}" for the mount at ${mount.mountPath}`);
    const source = mount.subPath === undefined || mount.subPath === '' ? dir : path.join(dir, mount.subPath);
    if (!fs.existsSync(source)) fs.mkdirSync(source, { recursive: true });
    mounts[mount.mountPath] = source;
  }
  const terminationLog = path.join(root, 'termination-log');
  fs.writeFileSync(terminationLog, '', { mode: 0o666 });
  fs.chmodSync(terminationLog, 0o666);
  mounts[container.terminationMessagePath ?? '/dev/termination-log'] = terminationLog;
  return { mounts, terminationLog };
}
