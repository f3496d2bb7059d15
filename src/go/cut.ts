/**
 * The most of one string from the cluster (a condition's message, an annotation, an API server's
 * error) that a report carries, and the most of one finding's message. A cluster can hold strings of
 * megabytes (an annotation up to 256 KiB, a status message without limit); a report repeats them in
 * every format, so each is cut, and the cut says how much was left out. It lives beside Go's quoting
 * (`quote.ts`), which applies it to every string a message quotes.
 *
 * @module
 */

/** The most characters (code points) of one string from the cluster a message quotes. */
export const MAX_QUOTED_CHARS = 2048;

/** The most characters (code points) of one finding's message. */
export const MAX_MESSAGE_CHARS = 8192;

/**
 * `text` cut to `max` code points (never inside a surrogate pair), and how many were left out; the
 * whole text and 0 when it is short enough.
 */
export function cutTo(text: string, max: number): { kept: string; dropped: number } {
  // Code units bound code points from above: a text of at most `max` units is never cut.
  if (text.length <= max) return { kept: text, dropped: 0 };
  const points = Array.from(text);
  if (points.length <= max) return { kept: text, dropped: 0 };
  return { kept: points.slice(0, max).join(''), dropped: points.length - max };
}

/** The words that mark a cut, after what was kept. */
export function cutMark(dropped: number): string {
  return `…[cut: ${dropped} more characters]`;
}

/** A mark at the end of a text cut before (by {@link cutText}). */
const CUT_AT_END = /…\[cut: \d+ more characters\]$/;

/**
 * One free-text string from the cluster (a condition's or an Event's message, an API server's error)
 * as the doctor keeps it: at most {@link MAX_QUOTED_CHARS} characters, the cut marked. Applied where
 * the text enters, so that every format and every message that embeds it gets the cut text.
 */
export function cutText(text: string): string {
  return cutMarked(text, MAX_QUOTED_CHARS);
}

/** `text` cut to `max` code points with the cut marked, or `text` when it is short enough. */
function cutMarked(text: string, max: number): string {
  const { kept, dropped } = cutTo(text, max);
  return dropped === 0 ? text : `${kept}${cutMark(dropped)}`;
}

/** Whether `text` is already a cut text (a mark at its end, no longer than a cut text can be). */
export function isCutText(text: string): boolean {
  return text.length <= 2 * MAX_QUOTED_CHARS + 64 && CUT_AT_END.test(text);
}

/** A finding's message no longer than {@link MAX_MESSAGE_CHARS}, the cut marked. */
export function cutMessage(message: string): string {
  return cutMarked(message, MAX_MESSAGE_CHARS);
}
