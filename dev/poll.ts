/**
 * The one way the development tools wait for something to become true: a control plane to answer, a
 * CRD to be served, a pod to be Ready, an RBAC grant to take effect.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** What one look found: `true` when the wait is over, else what stands in the way (said on timeout). */
export type Look = true | string;

/** How long and how often to look. */
export interface PollOptions {
  readonly timeoutMs: number;
  /** The pause between two looks; 200 ms unless told. */
  readonly intervalMs?: number;
  /** Asked before each look: a reason to give up at once (say, the process being waited for died). */
  readonly stopIf?: () => string | undefined;
  /** How an exception thrown by a look is told; its message unless told. */
  readonly describe?: (err: unknown) => string;
}

/**
 * Looks until a look says `true`. A look that throws counts as not yet, its error kept as what was last
 * seen.
 *
 * @throws Error naming `what`, the time waited and what the last look saw, once `timeoutMs` has passed
 * or `stopIf` gives a reason.
 */
export async function pollUntil(what: string, options: PollOptions, look: () => Promise<Look> | Look): Promise<void> {
  const describe = options.describe ?? ((err: unknown) => (err instanceof Error ? err.message : String(err)));
  const deadline = Date.now() + options.timeoutMs;
  let last: string;
  for (;;) {
    const stop = options.stopIf?.();
    if (stop !== undefined) throw new Error(`${what}: ${stop}`);
    try {
      const seen = await look();
      if (seen === true) return;
      last = seen;
    } catch (err) {
      last = describe(err);
    }
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${formatSeconds(options.timeoutMs)} (last seen: ${last})`);
    await sleep(options.intervalMs ?? 200);
  }
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
