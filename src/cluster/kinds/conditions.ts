import { cutText } from '../../go/cut.ts';
import { obj, str, type WireObject } from '../encoding/wire.ts';

/** A `metav1.Condition`, reduced to what the checks read. */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** The `status.conditions` of an object; an absent or malformed list reads as empty. */
export function conditionsOf(status: WireObject | undefined): Condition[] {
  const list = status?.['conditions'];
  if (!Array.isArray(list)) return [];
  return list.map((c) => {
    const o = obj(c);
    return {
      type: str(o?.['type']),
      status: str(o?.['status']),
      reason: cutText(str(o?.['reason'])),
      message: cutText(str(o?.['message'])),
    };
  });
}
