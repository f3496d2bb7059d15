/**
 * Where an in-pod path is. The doctor uses a few fixed paths of its pod: the ServiceAccount token and
 * CA, the projected controller token, the downward-API labels file, the termination log. In a real pod
 * `INFERENCECACHE_SECRETS_ROOT` is unset and every path is used as written; when the test kubelet
 * stand-in runs the bundle as a plain process, that variable names the directory standing for the
 * container's `/`, and every absolute in-pod path, given by flag or by default, lives below it.
 */
export function inContainer(root: string, path: string): string {
  return root !== '' && path.startsWith('/') ? `${root}${path}` : path;
}
