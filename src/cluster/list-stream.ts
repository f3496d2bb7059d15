/**
 * A Kubernetes list answer read as it streams in: each element of its top-level `items` array is
 * parsed on its own and handed over the moment its last byte has arrived, and the top-level `metadata`
 * (where the continue token is) is kept. A whole page, parsed (megabytes of objects for 500 pods), is
 * never in memory at once; only the element being read is.
 *
 * The splitter only finds where the top-level values begin and end (strings, escapes and nesting);
 * each element and the metadata are then parsed by `JSON.parse`, which does the validating. An answer
 * that is not one well-formed JSON object, or has no `items` array, is an error at `end`.
 *
 * Finding where an element ends character by character, in JavaScript, costs more than parsing it. So
 * once one element has been read that way, the splitter takes the way that element began (`{"metadata":`
 * for a Pod, `{"apiVersion":"…","kind":"…","metadata":` for a custom resource) as the likely start of
 * the next one, and looks for `},` followed by it with a native search. That text can only stand outside strings (its quote
 * follows a brace, so it cannot be an escaped one, and it is followed by a letter, so it cannot close a
 * string), but it may close a nested object. The text up to it is an element exactly when it parses as
 * one JSON value, and the splitter parses it to know: the parse it would do anyway. When it does not
 * parse, that element is read again character by character from its start. So every element is still
 * exactly what `JSON.parse` of the whole answer would give, whatever the answer holds.
 *
 * @module
 */

import { parseApiJson, withoutManagedFields } from './api-json.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The most text one element read the fast way may gather without its end being found: then it is read
 * again character by character, and the rest of the answer too. Larger than any object etcd stores
 * (1.5 MiB), so only an answer in some other layout (indented, or with the elements' keys in another
 * order) reaches it, once.
 */
export const FAST_CARRY_LIMIT = 2 * 1024 * 1024;

/** After this many elements of one answer that the fast way misread, the rest are read character by character. */
const FAST_MISSES_LIMIT = 8;

/**
 * How an element's text begins: its `apiVersion` and `kind` when they lead (as in a custom resource,
 * whose keys come sorted: its managedFields entries begin with `apiVersion` too, but not with `kind`),
 * then its next key (`metadata`).
 */
const ELEMENT_OPENING = /^\{(?:"apiVersion":"[^"\\]*",)?(?:"kind":"[^"\\]*",)?"[A-Za-z]+":/;

/** Where reading resumes after the fast way gave up: `text` from `at`, character by character. */
interface Resume {
  readonly text: string;
  readonly at: number;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
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

/** Where the splitter hands over what it found. */
export interface ListHandlers {
  /** Each element of `items`, parsed (integers beyond 2^53 exact, see `parseApiJson`), in order. */
  readonly onItem: (value: unknown) => void;
  /**
   * For a built-in Kind, the key written right after `metadata` (`spec` for a Pod): then each
   * element's `metadata.managedFields` is left out unparsed (see `withoutManagedFields`).
   */
  readonly metadataFollowedBy?: string;
  /**
   * The top-level `metadata`, parsed, the moment it is complete. An API server writes it before the
   * items, so the continue token is known while the page's items are still arriving.
   */
  readonly onMetadata?: (metadata: unknown) => void;
}

/**
 * Feed it the answer's bytes with `push`, then call `end`. The bytes are decoded as they come (a
 * character split between two chunks is joined), and the scan skips string contents with a native
 * search for the closing quote: most of a Kubernetes object is string content.
 */
export class ListSplitter {
  readonly #handlers: ListHandlers;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  #place: Place = 'start';
  #currentKey = '';
  /** Nesting below the current top-level value (or items element); 0 when not inside one. */
  #depth = 0;
  #inString = false;
  /** Whether the last chunk ended inside a string on an unpaired backslash. */
  #escaped = false;
  /** Whether the current value is a scalar (ends at `,`, `]`, `}` or a space rather than at its own closing). */
  #scalar = false;
  /** Whether the current value (or key) is kept: an items element, the metadata, or a key. */
  #keeping = false;
  /** The kept text of the current value (or key) from earlier chunks. */
  #pieces: string[] = [];
  #sawItems = false;
  /** The top-level metadata once read: parsed, or `invalid` when it is not JSON. */
  #metadata: { readonly value: unknown } | 'invalid' | undefined;
  /** `},` and the way the first element read began; undefined until then, or when it began otherwise. */
  #fastPattern: string | undefined;
  /** Whether the fast way is given up for the rest of this answer. */
  #fastOff = false;
  #fastMisses = 0;
  /** Whether the next element begins where the fast way misread it, so is read character by character. */
  #slowElement = false;
  /** The text so far of the element being read the fast way; undefined when none is. */
  #carry: string | undefined;
  /** How many elements were read each way, for the tests and the benchmark. */
  readonly stats = { fast: 0, slow: 0 };

  constructor(handlers: ListHandlers) {
    this.#handlers = handlers;
  }

  /** Reads the next chunk of the answer. */
  push(chunk: Uint8Array): void {
    this.#scan(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Reads `s`, switching between the fast way and character by character as elements begin and end. */
  #scan(s: string): void {
    let text = s;
    let at = 0;
    for (;;) {
      if (this.#carry !== undefined) {
        const resume = this.#fastScan(text, at);
        if (resume === undefined) return;
        ({ text, at } = resume);
      }
      const element = this.#slowScan(text, at);
      if (element < 0) return;
      this.#carry = '';
      at = element;
    }
  }

  /**
   * The end of the answer: its metadata, or why it is not a list (not one JSON object, no items
   * array). A scalar that runs to the very end is finished here.
   */
  end(): { readonly ok: true; readonly end: ListEnd } | { readonly ok: false; readonly why: string } {
    // The last element has no next one to mark its end: what is carried is read character by character.
    this.#fastOff = true;
    this.#scan(`${this.#decoder.decode()} `);
    if (this.#place !== 'done' || this.#depth !== 0 || this.#inString) return { ok: false, why: 'it is not one complete JSON object' };
    if (!this.#sawItems) return { ok: false, why: 'it has no items array' };
    if (this.#metadata === 'invalid') return { ok: false, why: 'its metadata is not valid JSON' };
    return { ok: true, end: { metadata: this.#metadata?.value } };
  }

  /**
   * Where the string that runs from `from` closes, or -1 when it runs past the end of `s` (then
   * `#escaped` says whether `s` ended on an unpaired backslash). A quote closes the string unless an
   * odd number of backslashes stands right before it.
   */
  #stringEnd(s: string, from: number): number {
    let i = from;
    if (this.#escaped) {
      if (i >= s.length) return -1;
      this.#escaped = false;
      i++;
    }
    const start = i;
    for (;;) {
      const quote = s.indexOf('"', i);
      const end = quote < 0 ? s.length : quote;
      let k = end - 1;
      while (k >= start && s.charCodeAt(k) === BACKSLASH) k--;
      const odd = (end - 1 - k) % 2 === 1;
      if (quote < 0) {
        this.#escaped = odd;
        return -1;
      }
      if (!odd) return quote;
      i = quote + 1;
    }
  }

  /** Starts a value at `s[i]`, kept from `i` when `keep`. */
  #beginValue(c: number, keep: boolean): void {
    this.#keeping = keep;
    this.#pieces = [];
    if (c === QUOTE) this.#inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.#depth = 1;
    else this.#scalar = true;
  }

  /** The current value ended just before `end`, its kept text (if any) starting at `from` in `s`. */
  #finishValue(s: string, from: number, end: number): void {
    if (this.#keeping) {
      this.#pieces.push(s.slice(from, end));
      const text = this.#pieces.length === 1 ? (this.#pieces[0] ?? '') : this.#pieces.join('');
      if (this.#place === 'items') {
        this.stats.slow++;
        this.#handlers.onItem(this.#parseElement(text));
        if (this.#fastPattern === undefined) {
          const opening = ELEMENT_OPENING.exec(text)?.[0];
          if (opening !== undefined) this.#fastPattern = `},${opening}`;
        }
      } else if (this.#currentKey === 'metadata') this.#keepMetadata(text);
    }
    this.#keeping = false;
    this.#pieces = [];
    this.#scalar = false;
    if (this.#place !== 'items') this.#place = 'after-value';
  }

  /** Parses the top-level metadata once, and hands it over when it is JSON (`end` reports it otherwise). */
  #keepMetadata(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#metadata = 'invalid';
      return;
    }
    this.#metadata = { value };
    this.#handlers.onMetadata?.(value);
  }

  /**
   * Reads `s` from `start` character by character. Returns where an element begins that the fast way
   * should read, or -1 once `s` is read.
   */
  #slowScan(s: string, start: number): number {
    // Where in `s` the kept text of the current value or key begins: at `start` when it runs on from before.
    let from = this.#keeping ? start : -1;
    const n = s.length;
    let i = start;
    while (i < n) {
      if (this.#inString) {
        const close = this.#stringEnd(s, i);
        if (close < 0) break;
        this.#inString = false;
        i = close + 1;
        if (this.#depth > 0 || this.#scalar) continue;
        if (this.#place === 'key') {
          this.#pieces.push(s.slice(from, close));
          this.#currentKey = this.#pieces.join('');
          this.#pieces = [];
          this.#keeping = false;
          this.#place = 'colon';
        } else {
          this.#finishValue(s, from, i);
        }
        from = -1;
        continue;
      }
      const c = s.charCodeAt(i);
      if (this.#depth > 0 || this.#scalar) {
        if (this.#depth === 0) {
          // A scalar ends at the delimiter, which belongs to the level above: it is read again.
          if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || isSpace(c)) {
            this.#finishValue(s, from, i);
            from = -1;
            continue;
          }
        } else if (c === QUOTE) this.#inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.#depth++;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (--this.#depth === 0) {
            this.#finishValue(s, from, i + 1);
            from = -1;
          }
        }
        i++;
        continue;
      }
      if (!isSpace(c)) {
        switch (this.#place) {
          case 'start':
            this.#place = c === OPEN_BRACE ? 'key-or-end' : 'broken';
            break;
          case 'key-or-end':
            if (c === QUOTE) {
              this.#place = 'key';
              this.#inString = true;
              this.#keeping = true;
              this.#pieces = [];
              from = i + 1;
            } else this.#place = c === CLOSE_BRACE ? 'done' : 'broken';
            break;
          case 'colon':
            this.#place = c === COLON ? 'value' : 'broken';
            break;
          case 'value':
            if (this.#currentKey === 'items' && c === OPEN_BRACKET) {
              this.#sawItems = true;
              this.#place = 'items';
              break;
            }
            this.#beginValue(c, this.#currentKey === 'metadata');
            from = i;
            break;
          case 'items':
            if (c === CLOSE_BRACKET) this.#place = 'after-value';
            else if (c !== COMMA) {
              if (c === OPEN_BRACE && this.#fastPattern !== undefined && !this.#fastOff && !this.#slowElement) return i;
              this.#slowElement = false;
              this.#beginValue(c, true);
              from = i;
            }
            break;
          case 'after-value':
            this.#place = c === COMMA ? 'key-or-end' : c === CLOSE_BRACE ? 'done' : 'broken';
            break;
          case 'key':
          case 'done':
          case 'broken':
            this.#place = 'broken';
            break;
        }
      }
      i++;
    }
    // Keep what of the current value or key this chunk held, for the next one.
    if (this.#keeping && from >= 0) this.#pieces.push(s.slice(from));
    return -1;
  }

  /**
   * Reads elements the fast way: `s` from `start` continues the element whose text so far is
   * `#carry`. Returns undefined once `s` is read (the unfinished element carried), or where to read
   * on character by character when the fast way gave up (from the start of the element it misread).
   */
  #fastScan(s: string, start: number): Resume | undefined {
    const pattern = this.#fastPattern ?? '';
    const carried = this.#carry ?? '';
    // The element's text begins at `from` in `text`; its end is searched for from `searchFrom`.
    const text = carried === '' ? s : carried + s.slice(start);
    let from = carried === '' ? start : 0;
    let searchFrom = carried === '' ? start + 1 : Math.max(1, carried.length - pattern.length + 1);
    if (this.#fastOff) return this.#giveUp(text, from, false);
    for (;;) {
      const close = text.indexOf(pattern, searchFrom);
      if (close < 0) {
        if (text.length - from > FAST_CARRY_LIMIT) return this.#giveUp(text, from, true);
        this.#carry = text.slice(from);
        return undefined;
      }
      let value: unknown;
      try {
        value = this.#parseElement(text.slice(from, close + 1));
      } catch {
        if (++this.#fastMisses >= FAST_MISSES_LIMIT) this.#fastOff = true;
        return this.#giveUp(text, from, false);
      }
      this.stats.fast++;
      this.#handlers.onItem(value);
      // `text[close + 1]` is the comma, and the next element begins right after it.
      from = close + 2;
      searchFrom = from + 1;
    }
  }

  /** Parses an element's text, leaving out its managedFields when the Kind allows (a text that is no JSON throws). */
  #parseElement(text: string): unknown {
    const next = this.#handlers.metadataFollowedBy;
    return parseApiJson(next === undefined ? text : withoutManagedFields(text, next));
  }

  /** Hands the element at `text[from]` to the character-by-character reading; `forGood` for the rest of the answer. */
  #giveUp(text: string, from: number, forGood: boolean): Resume {
    if (forGood) this.#fastOff = true;
    this.#carry = undefined;
    this.#slowElement = true;
    return { text, at: from };
  }
}
