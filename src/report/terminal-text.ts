/**
 * Text that is safe to write to a terminal. Anyone who can write a CacheBackend status, an Event or a
 * pod field controls strings the doctor prints; raw, an ESC would let them clear the screen, retitle
 * the window or write the clipboard (CSI and OSC sequences), a newline would let them forge a report
 * line, and a bidi control would make text read in another order than it runs. The human and table
 * renderers and the termination message therefore take only {@link TerminalText}, which nothing but
 * {@link forTerminal} makes.
 *
 * @module
 */

import { hex } from '../go/runes.ts';

/**
 * Every character that acts on a terminal or on how text reads: C0 controls (tab and newline
 * included), DEL, C1 controls, the line and paragraph separators, and the bidi controls (ALM, LRM,
 * RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is what this is for
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The short escapes for the controls everyone reads at a glance. */
const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(ch: string): string {
  const short = SHORT[ch];
  if (short !== undefined) return short;
  const cp = ch.codePointAt(0) ?? 0;
  return cp <= 0xff ? `\\x${hex(cp, 2)}` : `\\u${hex(cp, 4)}`;
}

/** A string shown with every unsafe character written visibly (`\x1b`, `\n`, `\u202e`). */
export class TerminalText {
  readonly #text: string;

  private constructor(text: string) {
    this.#text = text;
  }

  /** Escapes `text`: the only way to make a TerminalText. */
  static of(text: string): TerminalText {
    return new TerminalText(text.replace(UNSAFE, visible));
  }

  /** The escaped text. */
  toString(): string {
    return this.#text;
  }
}

/** Escapes `text` for a terminal; see {@link TerminalText}. */
export function forTerminal(text: string): TerminalText {
  return TerminalText.of(text);
}
