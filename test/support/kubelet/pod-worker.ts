/**
 * The life of one pod on the stand-in's node, as a kubelet's pod worker drives it: volumes (retried
 * with FailedMount events), the sandbox (pod IP), init containers one by one, then the containers
 * side by side with the pod's restart policy, `activeDeadlineSeconds`, and on deletion: stop the
 * processes (SIGTERM, grace period, SIGKILL), write the final status, and delete the pod object with
 * grace period 0. Every change is written through `pods/status`.
 *
 * @module
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../../../src/text/errors.ts';
import { isStatus, type KubeApi } from './api.ts';
import { ImagePullError, configureContainer, type ContainerConfigContext } from './container-config.ts';
import { startContainer, type RunningContainer } from './container.ts';
import { ContainerConfigError } from './env.ts';
import type { EventRecorder } from './events.ts';
import { buildPodStatus, type ContainerRuntime, type PodRuntime } from './status.ts';
import { nowRfc3339, type Container, type Pod } from './types.ts';
import { MountError, prepareVolumes, type PodVolumes } from './volumes.ts';

/** What a worker shares with the rest of the stand-in. */
export interface WorkerContext extends ContainerConfigContext {
  readonly api: KubeApi;
  readonly events: EventRecorder;
  readonly workDir: string;
  readonly rootCa?: string | undefined;
  readonly podIP: (uid: string) => string;
  readonly log: (line: string) => void;
}

/** One log file of a container start, and whether that start is over. */
export interface LogAttempt {
  readonly file: string;
  done: boolean;
}

const BACKOFF_MAX_MS = 8_000;
const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';

const errorText = (err: unknown): string => describeError(err);

/** Drives one pod; created when the pod is first seen bound to the node in phase Pending. */
export class PodWorker {
  readonly uid: string;
  readonly podDir: string;
  readonly rt: PodRuntime;
  readonly #running = new Map<string, RunningContainer>();
  readonly #logs = new Map<string, LogAttempt[]>();
  readonly #abort = new AbortController();
  #pod: Pod;
  #volumes: PodVolumes | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #statusChain: Promise<void> = Promise.resolve();
  #lastWritten = '';
  #silenced = false;
  #finished: Promise<void> | undefined;
  #deleteRequested = false;

  private readonly ctx: WorkerContext;

  constructor(ctx: WorkerContext, pod: Pod) {
    this.ctx = ctx;
    this.#pod = pod;
    this.uid = pod.metadata.uid ?? '';
    this.podDir = path.join(ctx.workDir, 'pods', `${pod.metadata.namespace ?? ''}_${pod.metadata.name}_${this.uid}`);
    const waiting = (c: Container): ContainerRuntime => ({
      name: c.name,
      image: c.image ?? '',
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
      restartCount: 0,
      ready: false,
      started: false,
    });
    this.rt = {
      hostIP: ctx.hostIP,
      startTime: nowRfc3339(),
      sandboxReady: false,
      init: (pod.spec.initContainers ?? []).map(waiting),
      containers: pod.spec.containers.map(waiting),
      deleting: false,
    };
  }

  get pod(): Pod {
    return this.#pod;
  }

  /** Pids of the container processes still running, by container name. */
  get pids(): ReadonlyMap<string, number> {
    const out = new Map<string, number>();
    for (const [name, c] of this.#running) if (c.alive() && c.pid !== undefined) out.set(name, c.pid);
    return out;
  }

  /** The log files of a container, one per start. */
  logAttempts(container: string): readonly LogAttempt[] {
    return this.#logs.get(container) ?? [];
  }

  /** Starts driving the pod. */
  start(): void {
    this.#finished = this.#run().catch((err: unknown) => this.ctx.log(`pod ${this.#name()} worker failed: ${errorText(err)}`));
  }

  /** A newer version of the pod from the watch: handle deletion, re-evaluate readiness gates. */
  update(pod: Pod): void {
    if (Number(pod.metadata.resourceVersion ?? 0) < Number(this.#pod.metadata.resourceVersion ?? 0)) return;
    this.#pod = pod;
    if (pod.metadata.deletionTimestamp !== undefined && !this.#deleteRequested) {
      this.#deleteRequested = true;
      this.rt.deleting = true;
      const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
      void this.#terminate(grace).then(() => this.#deleteObject());
      return;
    }
    void this.#syncStatus();
  }

  /** The pod object is gone (or the stand-in stops): kill everything, write nothing more. */
  async shutdown(): Promise<void> {
    this.#silenced = true;
    await this.#terminate(0);
  }

  #name(): string {
    return `${this.#pod.metadata.namespace ?? ''}/${this.#pod.metadata.name}`;
  }

  async #run(): Promise<void> {
    await this.#syncStatus();
    this.#armDeadline();
    this.#volumes = await this.#mountVolumes();
    if (this.#volumes !== undefined && !this.#abort.signal.aborted) {
      this.rt.sandboxReady = true;
      this.rt.podIP = this.ctx.podIP(this.uid);
      for (const c of this.rt.containers) c.state = { waiting: { reason: 'PodInitializing' } };
      await this.#syncStatus();
      if (await this.#runInitContainers()) {
        await Promise.all(this.#pod.spec.containers.map((c, i) => this.#runContainer(c, this.rt.containers[i] as ContainerRuntime, false)));
      }
    }
    clearTimeout(this.#deadline);
    this.#volumes?.stop();
    await this.#syncStatus();
  }

  #armDeadline(): void {
    const seconds = this.#pod.spec.activeDeadlineSeconds;
    if (seconds === undefined) return;
    const elapsed = Date.now() - Date.parse(this.rt.startTime);
    this.#deadline = setTimeout(
      () => {
        if (this.#abort.signal.aborted) return;
        this.rt.failure = { reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE };
        void this.ctx.events.record(this.#pod, { type: 'Normal', reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE });
        void this.#terminate(this.#pod.spec.terminationGracePeriodSeconds ?? 30);
      },
      Math.max(0, seconds * 1000 - elapsed),
    );
    this.#deadline.unref();
  }

  /** Retries volume setup with backoff until it works or the pod is stopped. */
  async #mountVolumes(): Promise<PodVolumes | undefined> {
    for (let backoff = 500; !this.#abort.signal.aborted; backoff = Math.min(backoff * 2, BACKOFF_MAX_MS)) {
      try {
        return await prepareVolumes({ api: this.ctx.api, pod: this.#pod, podDir: this.podDir, rootCa: this.ctx.rootCa, log: this.ctx.log });
      } catch (err) {
        if (!(err instanceof MountError)) throw err;
        await this.ctx.events.record(this.#pod, { type: 'Warning', reason: 'FailedMount', message: err.message });
        await this.#pause(backoff);
      }
    }
    return undefined;
  }

  /** Runs the init containers in order; false when one failed for good or the pod was stopped. */
  async #runInitContainers(): Promise<boolean> {
    for (const [i, container] of (this.#pod.spec.initContainers ?? []).entries()) {
      const rt = this.rt.init[i] as ContainerRuntime;
      await this.#runContainer(container, rt, true);
      if (rt.state.terminated?.exitCode !== 0 || this.#abort.signal.aborted) return false;
    }
    return true;
  }

  /** Starts, waits for and restarts one container as the restart policy says. */
  async #runContainer(container: Container, rt: ContainerRuntime, isInit: boolean): Promise<void> {
    const policy = this.#pod.spec.restartPolicy ?? 'Always';
    const fieldPath = `spec.${isInit ? 'initContainers' : 'containers'}{${container.name}}`;
    if (isInit && container.restartPolicy === 'Always') {
      const message = 'sidecar (restartable init) containers are not supported by the kubelet stand-in';
      rt.state = { waiting: { reason: 'CreateContainerConfigError', message } };
      await this.#syncStatus();
      await this.ctx.events.record(this.#pod, { type: 'Warning', reason: 'Failed', message, fieldPath });
      return;
    }
    for (let backoff = 1000; !this.#abort.signal.aborted;) {
      const proc = await this.#startOnce(container, rt, fieldPath);
      if (proc === undefined) {
        await this.#pause(backoff);
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
        continue;
      }
      const exit = await proc.exited;
      this.#running.delete(container.name);
      const attempts = this.#logs.get(container.name) ?? [];
      const last = attempts[attempts.length - 1];
      if (last !== undefined) last.done = true;
      rt.state = {
        terminated: {
          exitCode: exit.exitCode,
          ...(exit.signal === undefined ? {} : { signal: exit.signal }),
          reason: exit.reason,
          ...(exit.message === '' ? {} : { message: exit.message }),
          startedAt: exit.startedAt,
          finishedAt: exit.finishedAt,
          containerID: proc.containerID,
        },
      };
      rt.ready = false;
      rt.started = false;
      await this.#syncStatus();
      const restart = exit.exitCode !== 0 ? policy !== 'Never' : policy === 'Always' && !isInit;
      if (this.#abort.signal.aborted || !restart) return;
      rt.lastState = rt.state;
      rt.state = {
        waiting: {
          reason: 'CrashLoopBackOff',
          message: `back-off ${backoff / 1000}s restarting failed container=${container.name} pod=${this.#pod.metadata.name}_${this.#pod.metadata.namespace ?? ''}(${this.uid})`,
        },
      };
      await this.#syncStatus();
      await this.#pause(backoff);
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      rt.restartCount++;
    }
  }

  /** One start; undefined (with a waiting reason and an event) when the kubelet could not start it. */
  async #startOnce(container: Container, rt: ContainerRuntime, fieldPath: string): Promise<RunningContainer | undefined> {
    const volumes = this.#volumes;
    if (volumes === undefined) return undefined;
    const logFile = path.join(this.podDir, 'logs', container.name, `${rt.restartCount}.log`);
    let spec;
    try {
      spec = await configureContainer(this.ctx, {
        pod: this.#pod,
        container,
        podIP: this.rt.podIP ?? this.ctx.hostIP,
        volumes,
        root: path.join(this.podDir, 'containers', container.name, 'root'),
        logFile,
      });
    } catch (err) {
      const reason =
        err instanceof ImagePullError
          ? rt.state.waiting?.reason === 'ErrImagePull'
            ? 'ImagePullBackOff'
            : 'ErrImagePull'
          : err instanceof ContainerConfigError || err instanceof MountError
            ? 'CreateContainerConfigError'
            : undefined;
      if (reason === undefined) throw err;
      rt.state = { waiting: { reason, message: errorText(err) } };
      await this.#syncStatus();
      await this.ctx.events.record(this.#pod, { type: 'Warning', reason: 'Failed', message: errorText(err), fieldPath });
      await this.ctx.events.record(this.#pod, { type: 'Warning', reason: 'Failed', message: `Error: ${reason}`, fieldPath });
      return undefined;
    }
    if (this.#abort.signal.aborted) return undefined;
    fs.rmSync(logFile, { force: true });
    await this.ctx.events.record(this.#pod, {
      type: 'Normal',
      reason: 'Pulled',
      message: `Container image "${container.image ?? ''}" already present on machine`,
      fieldPath,
    });
    await this.ctx.events.record(this.#pod, {
      type: 'Normal',
      reason: 'Created',
      message: `Created container: ${container.name}`,
      fieldPath,
    });
    const proc = startContainer(spec);
    this.#running.set(container.name, proc);
    this.#logs.set(container.name, [...(this.#logs.get(container.name) ?? []), { file: logFile, done: false }]);
    rt.containerID = proc.containerID;
    rt.state = { running: { startedAt: proc.startedAt } };
    rt.started = container.startupProbe === undefined;
    rt.ready = container.readinessProbe === undefined && container.startupProbe === undefined;
    await this.#syncStatus();
    await this.ctx.events.record(this.#pod, {
      type: 'Normal',
      reason: 'Started',
      message: `Started container ${container.name}`,
      fieldPath,
    });
    return proc;
  }

  /** Waits `ms`, or less when the pod is stopped meanwhile. */
  async #pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.#abort.signal });
    } catch {
      /* stopped */
    }
  }

  /** Stops the pod: no more starts, SIGTERM now, SIGKILL after `graceSeconds`, resolves when the worker is done. */
  async #terminate(graceSeconds: number): Promise<void> {
    if (!this.#abort.signal.aborted) {
      this.#abort.abort();
      for (const [name, proc] of this.#running) {
        if (!this.#silenced) {
          const isInit = (this.#pod.spec.initContainers ?? []).some((c) => c.name === name);
          await this.ctx.events.record(this.#pod, {
            type: 'Normal',
            reason: 'Killing',
            message: `Stopping container ${name}`,
            fieldPath: `spec.${isInit ? 'initContainers' : 'containers'}{${name}}`,
          });
        }
        proc.signal('SIGTERM');
      }
      const procs = [...this.#running.values()];
      const all = Promise.all(procs.map((p) => p.exited));
      const timeout = sleep(graceSeconds * 1000, 'timeout' as const);
      if ((await Promise.race([all, timeout])) === 'timeout') procs.forEach((p) => p.signal('SIGKILL'));
    }
    await this.#finished;
  }

  /** Removes the pod object once its processes are gone, as the kubelet's status manager does. */
  async #deleteObject(): Promise<void> {
    if (this.#silenced) return;
    const ns = this.#pod.metadata.namespace ?? 'default';
    try {
      await this.ctx.api.delete(`/api/v1/namespaces/${ns}/pods/${this.#pod.metadata.name}`, {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        gracePeriodSeconds: 0,
        preconditions: { uid: this.uid },
      });
    } catch (err) {
      if (!isStatus(err, 404, 409)) this.ctx.log(`deleting pod ${this.#name()} failed: ${errorText(err)}`);
    }
  }

  /** Writes the status when it differs from what was last written. Serialised per pod. */
  #syncStatus(): Promise<void> {
    this.#statusChain = this.#statusChain
      .then(() => this.#writeStatus())
      .catch((err: unknown) => {
        if (!isStatus(err, 404, 409)) this.ctx.log(`status of ${this.#name()} not written: ${errorText(err)}`);
      });
    return this.#statusChain;
  }

  async #writeStatus(): Promise<void> {
    if (this.#silenced) return;
    const status = buildPodStatus(this.#pod, this.rt, nowRfc3339());
    const comparable = JSON.stringify({ ...status, conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: undefined })) });
    if (comparable === this.#lastWritten) return;
    const ns = this.#pod.metadata.namespace ?? 'default';
    const updated = await this.ctx.api.patch<Pod>(
      `/api/v1/namespaces/${ns}/pods/${this.#pod.metadata.name}/status`,
      { metadata: { uid: this.uid }, status },
      'strategic',
    );
    this.#lastWritten = comparable;
    if (Number(updated.metadata.resourceVersion ?? 0) >= Number(this.#pod.metadata.resourceVersion ?? 0)) this.#pod = updated;
  }
}
