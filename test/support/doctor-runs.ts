// Running the built bundle against the test control plane as a doctor identity, and reading back
// what it asked of the API server: shared by the integration suites.
import type { KubeConfig } from '@kubernetes/client-node';
import { expect, inject } from 'vitest';
import { completedRequestsBy } from '../../dev/cluster/audit.ts';
import { runBundle, type BundleRun } from './bundle.ts';
import type { JsonReport } from './json-report.ts';
import { doctorIdentity, type Identity, type ResourceName } from '../../dev/cluster/identity.ts';

/** A run of the bundle: its exit code and output, with the JSON report parsed. */
export type DoctorRun = BundleRun & { readonly report: JsonReport };

/** One audit-log entry of a doctor's request, reduced to what the tests compare. */
export interface AuditedRequest {
  readonly verb: string;
  readonly resource: string;
  readonly uri: string;
}

/**
 * Identities, runs and audit reads for one suite. Every identity made here is remembered, so that a
 * suite can check that none of its runs wrote anything.
 */
export function doctorRuns(kc: KubeConfig) {
  const users = new Set<string>();

  /** `inferencecache doctor` as `id`, in `output` (default JSON); it must never crash with a stack trace. */
  const raw = async (id: Identity, args: readonly string[], env: NodeJS.ProcessEnv = {}, output = 'json'): Promise<BundleRun> => {
    const result = await runBundle(['doctor', '--kubeconfig', id.kubeconfig, '-o', output, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    expect(result.stderr).not.toMatch(/unexpected failure|\bat .*\.mjs:\d+/);
    return result;
  };

  return {
    /** Every identity the doctor ran as, for the read-only audit. */
    users: users as ReadonlySet<string>,

    raw,

    /** A ServiceAccount in `namespace` with the doctor's ClusterRole, less the resources in `deny`. */
    identity: async (namespace: string, name: string, deny?: readonly ResourceName[]): Promise<Identity> => {
      const id = await doctorIdentity(kc, {
        namespace,
        name,
        server: inject('server'),
        caFile: inject('caFile'),
        ...(deny === undefined ? {} : { deny }),
      });
      users.add(id.username);
      return id;
    },

    /** `inferencecache doctor -o json` as `id`, with the report parsed. */
    run: async (id: Identity, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<DoctorRun> => {
      const result = await raw(id, args, env);
      return { ...result, report: JSON.parse(result.stdout) as JsonReport };
    },

    /** The completed requests `username` made, from the audit log. */
    auditOf: (username: string): AuditedRequest[] => {
      return completedRequestsBy(inject('auditLogPath'), new Set([username])).map((e) => ({
        verb: e.verb,
        resource: e.objectRef?.resource ?? '',
        uri: e.requestURI,
      }));
    },
  };
}
