import { readOperatorFile } from '../../files/operator-file.ts';
import { goUnquote } from '../../go/quote.ts';

/**
 * Who the doctor is when it runs in a pod: its namespace and name (from `POD_NAMESPACE` and
 * `POD_NAME`, which the chart sets through the downward API) and its labels (from the downward-API
 * labels file). Its own pod is left out of everything judged; NetworkPolicyReachability matches its
 * namespace and labels against the policies that fence the server. Outside a pod there is no identity.
 */
export interface DoctorPod {
  readonly namespace: string;
  /** Absent when `POD_NAME` is not set; then the doctor cannot tell its own pod from the others. */
  readonly name?: string;
  /** The file the labels were read from. */
  readonly labelsFile: string;
  /** Absent when the file could not be read; then `labelsError` says why. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly labelsError?: string;
}

/**
 * Parses a downward-API labels file: one `key="value"` line per label, the value Go-quoted. Lines
 * that are not of that form are skipped.
 */
export function parsePodLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.replace(/\r$/, '');
    const eq = trimmed.indexOf('=');
    if (eq <= 0) continue;
    const value = goUnquote(trimmed.slice(eq + 1));
    if (value !== undefined) labels[trimmed.slice(0, eq)] = value;
  }
  return labels;
}

/**
 * The doctor's own pod identity, or undefined outside a pod (no `POD_NAMESPACE`). An unreadable labels
 * file leaves the labels unknown, with the reason.
 */
export async function readDoctorPod(
  pod: { readonly namespace?: string | undefined; readonly name?: string | undefined },
  labelsFile: string,
  signal?: AbortSignal,
): Promise<DoctorPod | undefined> {
  const { namespace, name } = pod;
  if (namespace === undefined || namespace === '') return undefined;
  const identity = { namespace, ...(name === undefined || name === '' ? {} : { name }), labelsFile };
  const read = await readOperatorFile(labelsFile, 'pod-labels', signal);
  return read.ok ? { ...identity, labels: parsePodLabels(read.bytes.toString('utf8')) } : { ...identity, labelsError: read.reason };
}
