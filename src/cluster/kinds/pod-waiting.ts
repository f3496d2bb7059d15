/** Whether a pod still waits for a node: Pending and not bound. Only such a pod needs room on one. */
export function isWaitingForNode(pod: { readonly phase?: string | undefined; readonly nodeName?: string | undefined }): boolean {
  return pod.phase === 'Pending' && pod.nodeName === undefined;
}
