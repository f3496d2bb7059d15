/**
 * A Kubernetes list answer read as it streams in: each element of its top-level `items` array is handed
 * over, as its own small JSON text, the moment its last byte has arrived, and the top-level `metadata`
 * (where the continue token is) is kept. A whole page, parsed (megabytes of objects for 500 pods), is
 * never in memory at once; only the element being read is.
 *
 * The splitter only finds where the top-level values begin and end (strings, escapes and nesting);
 * each element and the metadata are then parsed by `JSON.parse`, which does the validating. An answer
 * that is not one well-formed JSON object, or has no `items` array, is an error at `end`.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Where the splitter is in the top-level object. */
type Place =
  | 'start' // before the opening brace
  | 'key-or-end' // after `{` or `,`: a key, or `}`
  | 'key' // inside a key string
  | 'colon'
  | 'value' // before a value
  | 'items' // inside the items array, between elements
  | 'after-value' // `,` or `}`
  | 'done' // after the closing brace
  | 'broken';

/** What the whole answer held besides its items. */
export interface ListEnd {
  /** The top-level `metadata` value, parsed; undefined when there is none. */
  readonly metadata: unknown;
}

/**
 * Feed it the answer's bytes with `push`, then call `end`. `onItem` gets each element of `items` as
 * text, in order, and whether it holds a number of 16 digits or more (which only the slower exact
 * parse keeps exact; see `parseApiJson`).
 */
export class ListSplitter {
  readonly #onItem: (text: string, longInteger: boolean) => void;
  /** Digits in a row outside strings, and whether the current value has had 16 or more. */
  #digits = 0;
  #longInteger = false;
  #place: Place = 'start';
  #key: Buffer[] = [];
  #currentKey = '';
  /** Nesting below the current top-level value (or items element); 0 when not inside one. */
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Bytes of the value being kept (an items element, or metadata); undefined when it is skipped. */
  #kept: Buffer[] | undefined;
  /** Whether the current value is a scalar (ends at `,`, `]` or `}` rather than at its own closing). */
  #scalar = false;
  #sawItems = false;
  #metadata: string | undefined;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

  constructor(onItem: (text: string, longInteger: boolean) => void) {
    this.#onItem = onItem;
  }

  /** Reads the next chunk of the answer. */
  push(chunk: Uint8Array): void {
    // Where in this chunk the bytes to keep begin: at 0 when a kept value or a key runs on from the last one.
    let keptFrom = this.#kept !== undefined || this.#place === 'key' ? 0 : -1;
    const startKeeping = (i: number) => {
      this.#kept = [];
      keptFrom = i;
    };
    const finishValue = (endExclusive: number) => {
      const kept = this.#kept;
      if (kept !== undefined) {
        if (keptFrom >= 0) kept.push(Buffer.from(chunk.subarray(keptFrom, endExclusive)));
        const text = this.#decoder.decode(Buffer.concat(kept));
        if (this.#place === 'items') this.#onItem(text, this.#longInteger);
        else if (this.#currentKey === 'metadata') this.#metadata = text;
      }
      this.#kept = undefined;
      keptFrom = -1;
      this.#scalar = false;
      this.#longInteger = false;
      this.#digits = 0;
    };
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] ?? 0;
      // Inside a value (or an items element): find where it ends.
      if (this.#depth > 0 || this.#scalar || this.#inString) {
        if (this.#inString) {
          if (this.#escaped) this.#escaped = false;
          else if (b === BACKSLASH) this.#escaped = true;
          else if (b !== QUOTE) {
            // Most of a page is string content: skip to the next quote or backslash at once.
            const quote = chunk.indexOf(QUOTE, i);
            const backslash = chunk.indexOf(BACKSLASH, i);
            const next = quote < 0 ? backslash : backslash < 0 ? quote : Math.min(quote, backslash);
            i = (next < 0 ? chunk.length : next) - 1;
          } else {
            this.#inString = false;
            if (this.#depth === 0 && !this.#scalar) {
              if (this.#place === 'key') {
                this.#currentKey = this.#decoder.decode(
                  Buffer.concat([...this.#key, Buffer.from(chunk.subarray(Math.max(0, keptFrom), i))]),
                );
                this.#key = [];
                keptFrom = -1;
                this.#place = 'colon';
              } else {
                finishValue(i + 1);
                if (this.#place !== 'items') this.#place = 'after-value';
              }
            }
          }
          continue;
        }
        if (b >= 0x30 && b <= 0x39) {
          if (++this.#digits >= 16) this.#longInteger = true;
        } else this.#digits = 0;
        if (this.#scalar && this.#depth === 0) {
          if (b === COMMA || b === CLOSE_BRACKET || b === CLOSE_BRACE || isSpace(b)) {
            finishValue(i);
            if (this.#place !== 'items') this.#place = 'after-value';
            i--; // the delimiter belongs to the level above
          }
          continue;
        }
        if (b === QUOTE) this.#inString = true;
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.#depth++;
        else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
          this.#depth--;
          if (this.#depth === 0) {
            finishValue(i + 1);
            if (this.#place !== 'items') this.#place = 'after-value';
          }
        }
        continue;
      }
      if (isSpace(b)) continue;
      switch (this.#place) {
        case 'start':
          this.#place = b === OPEN_BRACE ? 'key-or-end' : 'broken';
          break;
        case 'key-or-end':
          if (b === QUOTE) {
            this.#place = 'key';
            this.#inString = true;
            this.#key = [];
            keptFrom = i + 1;
          } else this.#place = b === CLOSE_BRACE ? 'done' : 'broken';
          break;
        case 'colon':
          this.#place = b === COLON ? 'value' : 'broken';
          break;
        case 'value':
          if (this.#currentKey === 'items' && b === OPEN_BRACKET) {
            this.#sawItems = true;
            this.#place = 'items';
            break;
          }
          this.#beginValue(b, i, this.#currentKey === 'metadata', startKeeping);
          break;
        case 'items':
          if (b === CLOSE_BRACKET) this.#place = 'after-value';
          else if (b !== COMMA) this.#beginValue(b, i, true, startKeeping);
          break;
        case 'after-value':
          this.#place = b === COMMA ? 'key-or-end' : b === CLOSE_BRACE ? 'done' : 'broken';
          break;
        case 'key':
        case 'done':
        case 'broken':
          this.#place = 'broken';
          break;
      }
    }
    // Keep what of the current value this chunk held, for the next one.
    if (keptFrom >= 0) {
      const rest = Buffer.from(chunk.subarray(keptFrom));
      if (this.#place === 'key') this.#key.push(rest);
      else this.#kept?.push(rest);
    }
  }

  #beginValue(b: number, i: number, keep: boolean, startKeeping: (i: number) => void): void {
    if (keep) startKeeping(i);
    else this.#kept = undefined;
    if (b === QUOTE) this.#inString = true;
    else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.#depth = 1;
    else this.#scalar = true;
  }

  /**
   * The end of the answer: its metadata, or why it is not a list (not one JSON object, no items
   * array). A scalar that runs to the very end is finished here.
   */
  end(): { readonly ok: true; readonly end: ListEnd } | { readonly ok: false; readonly why: string } {
    if (this.#scalar && this.#depth === 0 && !this.#inString) this.push(Buffer.from(' '));
    if (this.#place !== 'done' || this.#depth !== 0 || this.#inString) return { ok: false, why: 'it is not one complete JSON object' };
    if (!this.#sawItems) return { ok: false, why: 'it has no items array' };
    let metadata: unknown;
    try {
      metadata = this.#metadata === undefined ? undefined : (JSON.parse(this.#metadata) as unknown);
    } catch {
      return { ok: false, why: 'its metadata is not valid JSON' };
    }
    return { ok: true, end: { metadata } };
  }
}
