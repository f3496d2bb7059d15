/**
 * A part of a hand-written document that `npm run docs` writes from the code: the lines between two
 * marker comments. A test renders it again and compares, so the document cannot drift from the code.
 *
 * @module
 */

/** The marker comments that open and close a generated region, each on a line of its own. */
export interface RegionMarkers {
  readonly begin: string;
  readonly end: string;
}

/**
 * `text` with the lines between `markers.begin` and `markers.end` replaced by `body`; everything outside
 * the markers is kept as it is.
 *
 * @throws Error when `text` lacks either marker, or holds one twice.
 */
export function withRegion(text: string, markers: RegionMarkers, body: string): string {
  const { begin, end } = markers;
  const at = text.indexOf(begin);
  const endAt = text.indexOf(end);
  if (at < 0 || endAt < at || text.indexOf(begin, at + 1) >= 0 || text.indexOf(end, endAt + 1) >= 0) {
    throw new Error(`the document must hold the lines ${begin} and ${end} once each, in that order`);
  }
  return `${text.slice(0, at)}${begin}\n${body}${text.slice(endAt)}`;
}
