/**
 * What a controller added beside the real node as host processes (Argo CD, Flux) is started with: the
 * cluster, the folder it lives under, and the node's way of recording each process it starts.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';

/** The node's part in starting an add-on's processes (node.ts hands the same to each). */
export interface AddOnOptions {
  readonly kc: KubeConfig;
  /** The cluster-admin kubeconfig the add-on's controllers use. */
  readonly kubeconfigPath: string;
  /** The node's folder: the add-on's lives under it. */
  readonly dir: string;
  readonly detached: boolean;
  readonly log: (line: string) => void;
  /** Records a started process (its pid) at once, so a failure later still takes it down. */
  readonly started: (name: string, pid: number) => number;
}
