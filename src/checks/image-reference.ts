/**
 * The registry an image reference pulls from, by the rule the container runtimes share: the first
 * `/`-separated part names a registry when it holds a `.` or a `:` or is `localhost`; otherwise the image
 * is on Docker Hub (`docker.io`), as `nginx` and `library/nginx` are.
 */
export function registryOf(image: string): string {
  const slash = image.indexOf('/');
  if (slash === -1) return 'docker.io';
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}
