/**
 * A list-then-watch loop over all pods, resumed from the last resourceVersion (bookmarks included)
 * and re-listed when the watch expires (410) or fails. The server closes each watch after 25 s, before
 * client-node's 30 s idle timeout would. Handlers must be idempotent: a re-list replays every pod.
 *
 * @module
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../../../src/text/errors.ts';
import type { KubeApi } from './api.ts';
import type { Pod } from './types.ts';

/** A pod change, or a full list (`pods` replaces everything known). */
export type PodChange =
  { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly pod: Pod } | { readonly type: 'LIST'; readonly pods: readonly Pod[] };

/** The running loop. */
export interface PodWatch {
  stop(): Promise<void>;
}

/** Watches pods until stopped; `onChange` errors are logged, never fatal. */
export function watchPods(api: KubeApi, onChange: (change: PodChange) => void, log: (line: string) => void): PodWatch {
  let stopped = false;
  let cancel: (() => void) | undefined;
  const deliver = (change: PodChange): void => {
    try {
      onChange(change);
    } catch (err) {
      log(`pod handler failed: ${describeError(err)}`);
    }
  };

  /** One watch from `rv`; resolves with the resourceVersion to resume from, or undefined to re-list. */
  const watchOnce = (rv: string): Promise<string | undefined> =>
    new Promise((resolve) => {
      let last: string | undefined = rv;
      api
        .watch(
          '/api/v1/pods',
          { resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: '25' },
          (ev) => {
            const obj = ev.object as Pod & { code?: number };
            if (ev.type === 'ERROR') {
              last = undefined;
              return;
            }
            if (obj.metadata?.resourceVersion !== undefined) last = obj.metadata.resourceVersion;
            if (ev.type !== 'BOOKMARK') deliver({ type: ev.type, pod: obj });
          },
          (err: unknown) => {
            cancel = undefined;
            if (err !== null && err !== undefined && !stopped) log(`pod watch ended: ${describeError(err)}`);
            resolve(err === null || err === undefined ? last : undefined);
          },
        )
        .then((abort) => {
          cancel = abort;
          if (stopped) abort();
        })
        .catch(() => resolve(undefined));
    });

  const loop = async (): Promise<void> => {
    let rv: string | undefined;
    while (!stopped) {
      try {
        if (rv === undefined) {
          const list = await api.get<{ metadata: { resourceVersion: string }; items: Pod[] }>('/api/v1/pods');
          rv = list.metadata.resourceVersion;
          deliver({ type: 'LIST', pods: list.items });
        }
        rv = await watchOnce(rv);
      } catch (err) {
        if (!stopped) log(`pod list failed: ${describeError(err)}`);
        rv = undefined;
        await sleep(1000);
      }
    }
  };
  const running = loop();
  return {
    async stop() {
      stopped = true;
      cancel?.();
      await running;
    },
  };
}
