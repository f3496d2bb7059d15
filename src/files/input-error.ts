/** Input the doctor cannot judge (a file of `-f` that is unreadable, too large or not Kubernetes objects): exit 3 with this one line. */
export class InputError extends Error {
  override readonly name = 'InputError';
}
