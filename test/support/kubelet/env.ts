/**
 * A container's environment as the kubelet and the runtime assemble it: the image's ENV at the
 * bottom, then the `kubernetes` Service variables the kubelet injects (pointing at the real API
 * server's loopback address), then `envFrom`, then `env` with `$(VAR)` expansion. Anything the
 * kubelet would refuse (a missing ConfigMap key, an unsupported field path) is a
 * `ContainerConfigError`, which the pod worker reports as `CreateContainerConfigError`.
 *
 * @module
 */

import { isStatus, type KubeApi } from './api.ts';
import { FieldPathError, envFieldValue, type PodRuntimeFields } from './fieldpath.ts';
import { expandVars, type ImageCommand } from './images.ts';
import type { Container, DataObject, KeySelector, Pod } from './types.ts';

/** The kubelet cannot build the container's config (reason `CreateContainerConfigError`). */
export class ContainerConfigError extends Error {
  override readonly name = 'ContainerConfigError';
}

/** The runtime's default PATH when the image sets none. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The variables of the `kubernetes` Service in the `default` namespace, for `host:port` of the API server. */
export function kubernetesServiceEnv(host: string, port: string): Record<string, string> {
  const addr = host.includes(':') ? `[${host}]` : host;
  return {
    KUBERNETES_SERVICE_HOST: host,
    KUBERNETES_SERVICE_PORT: port,
    KUBERNETES_SERVICE_PORT_HTTPS: port,
    KUBERNETES_PORT: `tcp://${addr}:${port}`,
    [`KUBERNETES_PORT_${port}_TCP`]: `tcp://${addr}:${port}`,
    [`KUBERNETES_PORT_${port}_TCP_PROTO`]: 'tcp',
    [`KUBERNETES_PORT_${port}_TCP_PORT`]: port,
    [`KUBERNETES_PORT_${port}_TCP_ADDR`]: host,
  };
}

/** Reads ConfigMaps and Secrets once per container start. */
class DataReader {
  readonly #cache = new Map<string, DataObject | null>();
  private readonly api: KubeApi;
  private readonly namespace: string;

  constructor(api: KubeApi, namespace: string) {
    this.api = api;
    this.namespace = namespace;
  }

  async read(kind: 'configmap' | 'secret', name: string): Promise<DataObject | null> {
    const key = `${kind}/${name}`;
    if (!this.#cache.has(key)) {
      const plural = kind === 'configmap' ? 'configmaps' : 'secrets';
      try {
        this.#cache.set(key, await this.api.get<DataObject>(`/api/v1/namespaces/${this.namespace}/${plural}/${name}`));
      } catch (err) {
        if (!isStatus(err, 404)) throw err;
        this.#cache.set(key, null);
      }
    }
    return this.#cache.get(key) ?? null;
  }

  /** All keys of the object as strings (Secret data decoded). */
  async entries(kind: 'configmap' | 'secret', name: string, optional: boolean): Promise<Record<string, string>> {
    const obj = await this.read(kind, name);
    if (obj === null) {
      if (optional) return {};
      throw new ContainerConfigError(`${kind} "${name}" not found`);
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj.data ?? {})) out[k] = kind === 'secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
    return out;
  }

  async key(kind: 'configmap' | 'secret', ref: KeySelector): Promise<string | undefined> {
    const optional = ref.optional === true;
    const values = await this.entries(kind, ref.name, optional);
    const value = values[ref.key];
    if (value === undefined && !optional) {
      const label = kind === 'configmap' ? 'ConfigMap' : 'Secret';
      throw new ContainerConfigError(`couldn't find key ${ref.key} in ${label} ${this.namespace}/${ref.name}`);
    }
    return value;
  }
}

/** Inputs of `containerEnv`. */
export interface EnvContext {
  readonly api: KubeApi;
  readonly pod: Pod;
  readonly container: Container;
  readonly image: ImageCommand;
  /** `host` and `port` of the real API server. */
  readonly apiHost: string;
  readonly apiPort: string;
  readonly runtime: PodRuntimeFields;
}

/** The container's full environment (image ENV, Service variables, envFrom, env). */
export async function containerEnv(ctx: EnvContext): Promise<Record<string, string>> {
  const reader = new DataReader(ctx.api, ctx.pod.metadata.namespace ?? 'default');
  const env: Record<string, string> = {
    PATH: DEFAULT_PATH,
    HOSTNAME: ctx.pod.metadata.name,
    ...ctx.image.env,
    ...kubernetesServiceEnv(ctx.apiHost, ctx.apiPort),
  };
  for (const from of ctx.container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    const values =
      from.configMapRef !== undefined
        ? await reader.entries('configmap', from.configMapRef.name, from.configMapRef.optional === true)
        : from.secretRef !== undefined
          ? await reader.entries('secret', from.secretRef.name, from.secretRef.optional === true)
          : {};
    for (const [k, v] of Object.entries(values)) env[`${prefix}${k}`] = v;
  }
  for (const variable of ctx.container.env ?? []) {
    const value = await envValue(ctx, reader, variable.name, variable.value, variable.valueFrom, env);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

async function envValue(
  ctx: EnvContext,
  reader: DataReader,
  name: string,
  literal: string | undefined,
  from: NonNullable<Container['env']>[number]['valueFrom'],
  env: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  if (from === undefined) return expandVars(literal ?? '', env);
  if (from.fieldRef !== undefined) {
    try {
      return envFieldValue(ctx.pod, from.fieldRef.fieldPath, ctx.runtime);
    } catch (err) {
      if (err instanceof FieldPathError) throw new ContainerConfigError(`env ${name}: ${err.message}`);
      throw err;
    }
  }
  if (from.configMapKeyRef !== undefined) return reader.key('configmap', from.configMapKeyRef);
  if (from.secretKeyRef !== undefined) return reader.key('secret', from.secretKeyRef);
  const kind = Object.keys(from)[0] ?? 'valueFrom';
  throw new ContainerConfigError(`env ${name}: ${kind} is not supported by the kubelet stand-in`);
}
