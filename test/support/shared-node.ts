// The shared node as a suite of the project `node` takes it and gives it back (the state file comes from
// the project's global setup, test/support/node-setup.ts; dev/cluster/node/shared-node.ts does the work).
import { inject } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { ensureImage } from './image/build.ts';
import { acquireSharedNode, releaseSharedNode, stopSharedNode, type AcquireOptions } from '../../dev/cluster/node/shared-node.ts';
import type { NodeCluster } from '../../dev/cluster/node/node.ts';

/**
 * The shared node, with the add-ons `opts` asks for, as it was when it started (beforeAll). The bundle
 * and the doctor's image must be built first: the node's registry serves the image its pods pull.
 */
export function acquireNode(opts: AcquireOptions = {}): Promise<NodeCluster> {
  requireBundle();
  ensureImage();
  return acquireSharedNode(inject('sharedNodeFile'), opts);
}

/** Puts the node back as the suite found it; returns what could not be (afterAll: expect it empty). */
export function releaseNode(log?: (line: string) => void): Promise<string[]> {
  return releaseSharedNode(inject('sharedNodeFile'), log);
}

/** Takes the shared node down, for a suite that needs a node of its own; the next suite that asks starts it again. */
export function stopNode(log?: (line: string) => void): Promise<string[]> {
  return stopSharedNode(inject('sharedNodeFile'), log);
}
