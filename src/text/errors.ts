/**
 * Turning whatever a library threw into the one-line, secret-free error strings that reads, probes and
 * the report carry. One line, because a message is rendered as one line of a report.
 *
 * @module
 */

/** Collapses every run of line breaks (and the blanks around them) into one space, and trims. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').trim();
}

/** Replaces every occurrence of each non-empty secret by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length === 0) continue;
    out = out.split(secret).join('[redacted]');
    const trimmed = secret.trim();
    if (trimmed.length > 0 && trimmed !== secret) out = out.split(trimmed).join('[redacted]');
  }
  return out;
}

function ownText(err: Error): string {
  if (err.message.length > 0) return err.message;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.length > 0) return code;
  return err.name.length > 0 ? err.name : 'unknown error';
}

/**
 * A readable one-line description of a thrown value. An `AggregateError` (what node:net raises when
 * every address of a host failed) lists its distinct inner messages; a generic wrapper message is
 * followed by its `cause` when the cause adds something.
 */
export function describeError(err: unknown, depth = 0): string {
  if (depth > 4) return '…';
  if (err instanceof AggregateError && err.errors.length > 0) {
    const inner = [...new Set(err.errors.map((e: unknown) => describeError(e, depth + 1)))];
    const joined = inner.join('; ');
    return oneLine(err.message.length > 0 ? `${err.message}: ${joined}` : joined);
  }
  if (err instanceof Error) {
    let text = ownText(err);
    const cause = (err as { cause?: unknown }).cause;
    if (cause !== undefined && cause !== null && cause !== err) {
      const causeText = describeError(cause, depth + 1);
      if (causeText.length > 0 && !text.includes(causeText)) text = `${text}: ${causeText}`;
    }
    return oneLine(text);
  }
  if (typeof err === 'string') return oneLine(err.length > 0 ? err : 'unknown error');
  if (err === undefined || err === null) return 'unknown error';
  if (typeof err === 'number' || typeof err === 'boolean' || typeof err === 'bigint' || typeof err === 'symbol') return err.toString();
  if (typeof err === 'function') return 'unknown error';
  try {
    return oneLine(JSON.stringify(err));
  } catch {
    return 'unknown error';
  }
}

/**
 * The short reason of a failed file operation: its errno code (`ENOENT`, `EISDIR`) when it has one,
 * else its one-line description.
 */
export function fileErrorReason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : describeError(err);
}

/**
 * Why a run was cut short by a signal (`interrupted by SIGTERM`): the reason its abort signal carries,
 * so that every read and probe it ends can say so instead of blaming a deadline.
 */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
}

/** Why a run stopped early: the reason its interrupt carries (`interrupted by SIGTERM`), or undefined. */
export function interruptionOf(interrupt: AbortSignal | undefined): string | undefined {
  if (interrupt?.aborted !== true) return undefined;
  const reason: unknown = interrupt.reason;
  return reason instanceof Error ? reason.message : 'interrupted';
}
