import type { SettleFailure, Settling } from '../probes/results.ts';
/**
 * What a finding adds when its probe first waited for the doctor's fresh pod to be admitted
 * (probes/settle.ts): how the connections failed and for how long after the pod started.
 *
 * @module
 */

const FAILED: Readonly<Record<SettleFailure, string>> = {
  refused: 'connections were refused',
  unreachable: 'the address was unreachable',
  unanswered: 'connections went unanswered',
};

/**
 * ` (connections were refused for 1.4s after the doctor's pod started, then accepted)`, or `…, 23 tries,
 * none accepted)`; empty when the probe did not wait.
 */
export function settleNote(settling: Settling | undefined): string {
  if (settling === undefined) return '';
  const seconds = (Math.round(settling.afterPodStartMs / 100) / 10).toFixed(1);
  const then = settling.accepted ? ', then accepted' : `, ${settling.tries} tries, none accepted`;
  return ` (${FAILED[settling.failure]} for ${seconds}s after the doctor's pod started${then})`;
}
