/**
 * Why no usable kubeconfig could be loaded; the doctor exits 3 with this message. Kept apart from the
 * loader, which pulls in the Kubernetes client, so that recognising it costs nothing.
 */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}
