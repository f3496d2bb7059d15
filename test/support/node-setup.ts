// vitest globalSetup of the project `node`: the suites of the real node share one node
// (dev/cluster/node/shared-node.ts). The first suite that asks starts it; this setup takes down what a
// killed run left first (its state file names it), hands the suites the state file, and at the end
// takes the node down and fails the run if it left anything in the machine (processes, mounts,
// cgroups, network namespaces, interfaces, iptables chains, ipsets, folders).
import type { TestProject } from 'vitest/node';
import { sharedNodeFile, sharedNodeRecorded, stopSharedNode } from '../../dev/cluster/node/shared-node.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared node's state file (acquireSharedNode, releaseSharedNode). */
    sharedNodeFile: string;
  }
}

const log = (line: string) => console.info(`[shared node] ${line}`);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const file = process.env['SHARED_NODE_FILE'] ?? sharedNodeFile();
  if (sharedNodeRecorded(file)) {
    log(`a run before this one left a node (${file}): taking it down`);
    const left = await stopSharedNode(file, log);
    if (left.length > 0) throw new Error(`the node a run before left could not be taken down: ${left.join('; ')}`);
  }
  project.provide('sharedNodeFile', file);
  // Vitest only logs what a global teardown throws: the exit code is what fails the run.
  return async () => {
    const left = await stopSharedNode(file, log);
    if (left.length === 0) return;
    console.error(`[shared node] FAILED: taking the node down left behind: ${left.join('; ')}`);
    process.exitCode = 1;
  };
}
