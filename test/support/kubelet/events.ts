/**
 * core/v1 Events about pods, as the kubelet (and, for `Scheduled`, the scheduler) records them: a
 * repeat of the same reason and message for the same object bumps `count` instead of adding an event,
 * so retry loops (FailedMount, config errors) stay readable in `kubectl describe`.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { describeError } from '../../../src/text/errors.ts';
import type { KubeApi } from './api.ts';
import type { Pod } from './types.ts';

/** One event to record. */
export interface PodEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  /** `spec.containers{name}` for container events. */
  readonly fieldPath?: string;
  /** Reporting component; default `kubelet`. */
  readonly component?: string;
}

/** Records events for pods of one node; failures are logged, never thrown. */
export class EventRecorder {
  readonly #seen = new Map<string, { name: string; namespace: string; count: number }>();

  private readonly api: KubeApi;
  private readonly nodeName: string;
  private readonly log: (line: string) => void;

  constructor(api: KubeApi, nodeName: string, log: (line: string) => void) {
    this.api = api;
    this.nodeName = nodeName;
    this.log = log;
  }

  async record(pod: Pod, ev: PodEvent): Promise<void> {
    const namespace = pod.metadata.namespace ?? 'default';
    const key = [pod.metadata.uid, ev.reason, ev.message, ev.fieldPath ?? ''].join('\u0000');
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const seen = this.#seen.get(key);
    try {
      if (seen !== undefined) {
        seen.count++;
        await this.api.patch(
          `/api/v1/namespaces/${seen.namespace}/events/${seen.name}`,
          { count: seen.count, lastTimestamp: now },
          'merge',
        );
        return;
      }
      const name = `${pod.metadata.name}.${randomBytes(8).toString('hex')}`;
      const component = ev.component ?? 'kubelet';
      await this.api.post(`/api/v1/namespaces/${namespace}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: 'v1',
          kind: 'Pod',
          namespace,
          name: pod.metadata.name,
          uid: pod.metadata.uid,
          ...(ev.fieldPath === undefined ? {} : { fieldPath: ev.fieldPath }),
        },
        type: ev.type,
        reason: ev.reason,
        message: ev.message,
        source: { component, ...(component === 'kubelet' ? { host: this.nodeName } : {}) },
        reportingComponent: component,
        reportingInstance: component === 'kubelet' ? this.nodeName : '',
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
      this.#seen.set(key, { name, namespace, count: 1 });
    } catch (err) {
      this.log(`event ${ev.reason} for ${namespace}/${pod.metadata.name} not recorded: ${describeError(err)}`);
    }
  }

  /** Forgets the events of a pod that is gone. */
  forget(uid: string): void {
    for (const key of [...this.#seen.keys()]) if (key.startsWith(`${uid}\u0000`)) this.#seen.delete(key);
  }
}
