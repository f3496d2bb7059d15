import { arr, obj, objectRef, optStr } from '../encoding/wire.ts';
import { CORE } from './access.ts';
import { defineKind, type ObjectRef } from './kind.ts';

/** A ServiceAccount: only its pull secrets matter. */
export interface ServiceAccount extends ObjectRef {
  readonly imagePullSecrets: readonly string[];
}

/** Projects a ServiceAccount to the names of its `imagePullSecrets`. */
export function projectServiceAccount(raw: unknown): ServiceAccount {
  const names = arr(obj(raw)?.['imagePullSecrets']).flatMap((r) => {
    const name = optStr(obj(r)?.['name']);
    return name === undefined ? [] : [name];
  });
  return { ...objectRef(raw), imagePullSecrets: names };
}

/** The ServiceAccounts, for the pull secrets they lend their pods. */
export const SERVICE_ACCOUNT_KIND = defineKind({
  kind: 'ServiceAccount',
  access: { ...CORE, resource: 'serviceaccounts', verbs: ['list'], namespaced: true },
  reads: 'list',
  project: projectServiceAccount,
  dump: { write: 'whole' },
});
