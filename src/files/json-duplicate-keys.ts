/**
 * The first key a JSON text gives twice in one object. `JSON.parse` keeps the last value of a
 * duplicate key without a word, while the YAML reader of `doctor -f` refuses one; a file is judged
 * the same whichever of the two it is written in, so JSON is refused too. The scan runs over text
 * `JSON.parse` has already accepted, in one pass, keeping only the keys of the objects still open.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** A key given twice: the key, and the line (from 1) of its second occurrence. */
export interface DuplicateKey {
  readonly key: string;
  readonly line: number;
}

/** One open object (its keys so far, and whether a key comes next) or array (`undefined`). */
type Frame = { keys: Set<string>; keyNext: boolean } | undefined;

/** The first duplicate key of a valid JSON text, or undefined. */
export function firstDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) {
          escaped = true;
          i++;
        } else if (d === QUOTE) break;
      }
      const frame = stack.at(-1);
      if (frame?.keyNext !== true) continue;
      frame.keyNext = false;
      const raw = text.slice(start, i + 1);
      const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      if (frame.keys.has(key)) return { key, line: text.slice(0, start).split('\n').length };
      frame.keys.add(key);
    } else if (c === OPEN_OBJECT) stack.push({ keys: new Set(), keyNext: true });
    else if (c === OPEN_ARRAY) stack.push(undefined);
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) stack.pop();
    else if (c === COMMA) {
      const frame = stack.at(-1);
      if (frame !== undefined) frame.keyNext = true;
    }
  }
  return undefined;
}
