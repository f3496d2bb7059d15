import { readFile } from 'node:fs/promises';
import { inContainer } from './container-root.ts';

/** Where the chart's downward-API volume puts the pod's labels. */
export const POD_LABELS_FILE = '/etc/podinfo/labels';

/**
 * Who the doctor is when it runs in a pod: its namespace (from `POD_NAMESPACE`) and its labels (from
 * the downward-API labels file). NetworkPolicyReachability matches these against the policies that
 * fence the server. Outside a pod there is no identity at all.
 */
export interface DoctorPod {
  readonly namespace: string;
  /** The file the labels were read from. */
  readonly labelsFile: string;
  /** Absent when the file could not be read; then `labelsError` says why. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly labelsError?: string;
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34, "'": 39 };

/** Undoes Go's `%q` quoting (the kubelet writes each label value with it); undefined when malformed. */
export function goUnquote(quoted: string): string | undefined {
  if (quoted.length < 2 || !quoted.startsWith('"') || !quoted.endsWith('"')) return undefined;
  const body = quoted.slice(1, -1);
  const bytes: number[] = [];
  const utf8 = new TextEncoder();
  for (let i = 0; i < body.length; ) {
    const c = body[i] as string;
    if (c === '"') return undefined;
    if (c !== '\\') {
      const cp = body.codePointAt(i) as number;
      const ch = String.fromCodePoint(cp);
      bytes.push(...utf8.encode(ch));
      i += ch.length;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      bytes.push(simple);
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const digits = body.slice(i + 2, i + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) return undefined;
      const n = Number.parseInt(digits, 16);
      if (e === 'x') bytes.push(n);
      else if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return undefined;
      else bytes.push(...utf8.encode(String.fromCodePoint(n)));
      i += 2 + width;
    } else if (/[0-7]/.test(e)) {
      const digits = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(digits)) return undefined;
      const n = Number.parseInt(digits, 8);
      if (n > 255) return undefined;
      bytes.push(n);
      i += 4;
    } else {
      return undefined;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
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
 * The doctor's own pod identity, or undefined outside a pod (no `POD_NAMESPACE`). The labels file
 * is `labelsFile` when given, else {@link POD_LABELS_FILE}, as an in-pod path below `root` (see
 * {@link inContainer}). An unreadable file leaves the labels unknown, with the reason.
 */
export async function readDoctorPod(podNamespace: string | undefined, labelsFile: string | undefined, root: string): Promise<DoctorPod | undefined> {
  if (podNamespace === undefined || podNamespace === '') return undefined;
  const file = inContainer(root, labelsFile ?? POD_LABELS_FILE);
  try {
    return { namespace: podNamespace, labelsFile: file, labels: parsePodLabels(await readFile(file, 'utf8')) };
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    return { namespace: podNamespace, labelsFile: file, labelsError: why };
  }
}
