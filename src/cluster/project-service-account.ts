import type { ServiceAccount } from './state.ts';
import { arr, obj, objectRef, optStr } from './wire.ts';

/** Projects a ServiceAccount to the names of its `imagePullSecrets`. */
export function projectServiceAccount(raw: unknown): ServiceAccount {
  const names = arr(obj(raw)?.['imagePullSecrets']).flatMap((r) => {
    const name = optStr(obj(r)?.['name']);
    return name === undefined ? [] : [name];
  });
  return { ...objectRef(raw), imagePullSecrets: names };
}
