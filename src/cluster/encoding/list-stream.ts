/**
 * A Kubernetes list answer read as it streams in: each element of its top-level `items` array is
 * parsed on its own and handed over the moment its last byte has arrived, and the top-level `metadata`
 * (where the continue token is) is handed over the moment it is complete. A whole page, parsed
 * (megabytes of objects for 500 pods), is never in memory at once; only the element being read is.
 *
 * The splitter only finds where the top-level values begin and end (strings, escapes and nesting);
 * each element and every other top-level value are then parsed by `JSON.parse`, which does the
 * validating. An answer that is not one well-formed JSON object, or has no `items` array, is an error
 * at `end`; an element that is not JSON is thrown as {@link ElementNotJson} by `push` or `end`.
 *
 * A member named twice reads as `JSON.parse` reads it: the last one counts. A later `metadata` is
 * handed over again, superseding the earlier one. A later `items` cannot be honoured (the first
 * array's elements are already handed over), so the answer is an error at `end` instead.
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

/**
 * After this many elements of one answer that the fast way misread, the rest are read character by
 * character: in an answer whose elements keep holding the pattern, each misread costs a parse of text
 * that is then read again. Exported for the tests.
 */
export const FAST_MISSES_LIMIT = 8;

/**
 * How an element's text begins: its `apiVersion` and `kind` when they lead (as in a custom resource,
 * whose keys come sorted: its managedFields entries begin with `apiVersion` too, but not with `kind`),
 * then its next key (`metadata`).
 */
const ELEMENT_OPENING = /^\{(?:"apiVersion":"[^"\\]*",)?(?:"kind":"[^"\\]*",)?"[A-Za-z]+":/;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Where the character-by-character reading is in the top-level object. */
type Place =
  | 'start' // before the opening brace
  | 'key-or-end' // after `{`: a key, or `}`
  | 'key' // after `,`: a key
  | 'in-key' // inside a key string
  | 'colon'
  | 'value' // before a member's value
  | 'member' // inside a member's value (other than the items array)
  | 'items-first' // after the `[` of items: an element, or `]`
  | 'item' // inside an element of items
  | 'items-next' // after an element: `,` or `]`
  | 'items-element' // after a `,` between elements: an element
  | 'after-value' // after a member: `,` or `}`
  | 'done' // after the closing brace
  | 'broken';

/**
 * The character-by-character reading: where it is, and what it knows of the value (or key) it is in.
 * Only the modes that read this way have one; the fast way knows only the text it carries.
 */
interface Cursor {
  place: Place;
  /** The key of the member being read, decoded. */
  key: string;
  /** Nesting below the current value (or items element); 0 when not inside a container. */
  depth: number;
  /** Whether the reading is inside a string. */
  inString: boolean;
  /** Whether the last chunk ended inside a string on an unpaired backslash. */
  escaped: boolean;
  /** Whether the current value is a scalar (ends at `,`, `]`, `}` or a space rather than at its own closing). */
  scalar: boolean;
  /** Whether the current value's (or key's) text is kept: all but the items array and an `items` named again. */
  keeping: boolean;
  /** The kept text of the current value (or key) from earlier chunks. */
  pieces: string[];
}

function cursorAt(place: Place): Cursor {
  return { place, key: '', depth: 0, inString: false, escaped: false, scalar: false, keeping: false, pieces: [] };
}

/** The fast way, once an element has shown how elements begin. */
interface FastWay {
  /** `},` and the way that element began: where one element ends and the next begins, most likely. */
  readonly pattern: string;
  /** How many elements of this answer it has misread. */
  readonly misses: number;
}

/**
 * How the splitter reads now. One value, so that what only one way of reading needs (the cursor of the
 * character-by-character reading, the fast way's pattern, the text the fast way carries) exists only
 * while the splitter reads that way, and every change of way is one assignment.
 */
type Mode =
  /** Character by character, until an element shows how elements begin. */
  | { readonly mode: 'scanning'; readonly cursor: Cursor }
  /** Character by character between elements (and outside `items`); the next element that opens with `{` is read the fast way. */
  | { readonly mode: 'slow'; readonly cursor: Cursor; readonly way: FastWay }
  /** Elements found by a native search for the pattern; `carry` is the text so far of the element being read. */
  | { readonly mode: 'fast'; readonly way: FastWay; carry: string }
  /** Character by character through an element the fast way misread, from its start to its end; then `slow`. */
  | { readonly mode: 'rereading'; readonly cursor: Cursor; readonly way: FastWay }
  /** Character by character to the end: too many misreads, an element past {@link FAST_CARRY_LIMIT}, or `end`. */
  | { readonly mode: 'given-up'; readonly cursor: Cursor };

/** How the splitter reads at the moment (see {@link ListSplitter.mode}): exported for the tests, which follow it through its modes. */
export type SplitterMode = Mode['mode'];

/** Where reading resumes after the fast way gave up: `text` from `at`, character by character. */
interface Resume {
  readonly text: string;
  readonly at: number;
}

/** What the whole answer held besides its items. */
export interface ListEnd {
  /** The top-level `metadata` value, parsed (the last one, as `JSON.parse` keeps); undefined when there is none. */
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
   * items, so the continue token is known while the page's items are still arriving. When the answer
   * names `metadata` again, each later one is handed over too: it supersedes the earlier ones, as in
   * `JSON.parse`.
   */
  readonly onMetadata?: (metadata: unknown) => void;
}

/**
 * An element of `items` that is not JSON, thrown by `push` or `end`: the answer is no list. Its own
 * class, so that a caller tells it from what its handlers throw, which `push` and `end` pass on as it
 * is (a bug there must not read as broken API data).
 */
export class ElementNotJson extends Error {
  /** The element's position in the answer's `items`, counted from 0. */
  readonly index: number;

  constructor(index: number, cause: SyntaxError) {
    super(`the element at index ${index} of items is not JSON: ${cause.message}`, { cause });
    this.name = 'ElementNotJson';
    this.index = index;
  }
}

/** A key's text as it stands between its quotes, decoded; undefined when it is not a JSON string. */
function decodeKey(raw: string): string | undefined {
  try {
    const key: unknown = JSON.parse(`"${raw}"`);
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Feed it the answer's bytes with `push`, then call `end`. The bytes are decoded as they come (a
 * character split between two chunks is joined), and the scan skips string contents with a native
 * search for the closing quote: most of a Kubernetes object is string content.
 */
export class ListSplitter {
  readonly #handlers: ListHandlers;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  #state: Mode = { mode: 'scanning', cursor: cursorAt('start') };
  /** The answer's `items`: not read yet, read as an array, or named again after that. */
  #items: 'absent' | 'read' | 'repeated' = 'absent';
  /** The last top-level `metadata` read; undefined before one. */
  #metadata: { readonly value: unknown } | undefined;
  /** The key of the first top-level member whose value is not JSON; undefined while there is none. */
  #invalid: string | undefined;
  /** How many elements were read each way, for the tests and the benchmark. */
  readonly stats = { fast: 0, slow: 0 };

  constructor(handlers: ListHandlers) {
    this.#handlers = handlers;
  }

  /** How the splitter reads at the moment, for the tests. */
  get mode(): SplitterMode {
    return this.#state.mode;
  }

  /** Reads the next chunk of the answer. */
  push(chunk: Uint8Array): void {
    this.#scan(this.#decoder.decode(chunk, { stream: true }));
  }

  /**
   * The end of the answer: its metadata, or why it is not a list (not one JSON object, a top-level
   * value that is not JSON, `items` named twice, no items array). A scalar that runs to the very end
   * is finished here.
   */
  end(): { readonly ok: true; readonly end: ListEnd } | { readonly ok: false; readonly why: string } {
    const state = this.#state;
    const tail = this.#decoder.decode();
    // The last element has no next one to mark its end: what is carried is read character by character.
    const cursor = state.mode === 'fast' ? cursorAt('items-element') : state.cursor;
    this.#state = { mode: 'given-up', cursor };
    this.#scan(state.mode === 'fast' ? `${state.carry}${tail} ` : `${tail} `);
    if (cursor.place !== 'done' || cursor.depth !== 0 || cursor.inString) return { ok: false, why: 'it is not one complete JSON object' };
    if (this.#invalid !== undefined) {
      const name = /^[A-Za-z]+$/.test(this.#invalid) ? this.#invalid : JSON.stringify(this.#invalid);
      return { ok: false, why: `its ${name} is not valid JSON` };
    }
    if (this.#items === 'repeated') return { ok: false, why: 'it holds items twice' };
    if (this.#items === 'absent') return { ok: false, why: 'it has no items array' };
    return { ok: true, end: { metadata: this.#metadata?.value } };
  }

  /** Reads `s`, switching between the fast way and character by character as elements begin and end. */
  #scan(s: string): void {
    let text = s;
    let at = 0;
    for (;;) {
      const state = this.#state;
      if (state.mode === 'fast') {
        const resume = this.#fastScan(state, text, at);
        if (resume === undefined) return;
        ({ text, at } = resume);
      } else {
        const element = this.#slowScan(state.cursor, text, at);
        if (element < 0) return;
        at = element;
      }
    }
  }

  /**
   * Reads `s` from `start` character by character. Returns where an element begins that the fast way
   * reads (the mode is then `fast`), or -1 once `s` is read.
   */
  #slowScan(cur: Cursor, s: string, start: number): number {
    // Where in `s` the kept text of the current value or key begins: at `start` when it runs on from before.
    let from = cur.keeping ? start : -1;
    const n = s.length;
    let i = start;
    while (i < n) {
      if (cur.inString) {
        const close = stringEnd(cur, s, i);
        if (close < 0) break;
        cur.inString = false;
        i = close + 1;
        if (cur.depth > 0 || cur.scalar) continue;
        if (cur.place === 'in-key') this.#finishKey(cur, s, from, close);
        else this.#finishValue(cur, s, from, i);
        from = -1;
        continue;
      }
      const c = s.charCodeAt(i);
      if (cur.depth > 0 || cur.scalar) {
        if (cur.depth === 0) {
          // A scalar ends at the delimiter, which belongs to the level above: it is read again.
          if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || isSpace(c)) {
            this.#finishValue(cur, s, from, i);
            from = -1;
            continue;
          }
        } else if (c === QUOTE) cur.inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) cur.depth++;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (--cur.depth === 0) {
            this.#finishValue(cur, s, from, i + 1);
            from = -1;
          }
        }
        i++;
        continue;
      }
      if (!isSpace(c)) {
        switch (cur.place) {
          case 'start':
            cur.place = c === OPEN_BRACE ? 'key-or-end' : 'broken';
            break;
          case 'key-or-end':
          case 'key':
            if (c === QUOTE) {
              cur.place = 'in-key';
              cur.inString = true;
              cur.keeping = true;
              cur.pieces = [];
              from = i + 1;
            } else cur.place = c === CLOSE_BRACE && cur.place === 'key-or-end' ? 'done' : 'broken';
            break;
          case 'colon':
            cur.place = c === COLON ? 'value' : 'broken';
            break;
          case 'value':
            if (cur.key === 'items' && this.#items !== 'absent') {
              // JSON.parse would keep this value instead of the elements already handed over.
              this.#items = 'repeated';
              beginValue(cur, c, 'member', false);
            } else if (cur.key === 'items' && c === OPEN_BRACKET) {
              this.#items = 'read';
              cur.place = 'items-first';
            } else {
              beginValue(cur, c, 'member', true);
              from = i;
            }
            break;
          case 'items-first':
          case 'items-element':
            if (c === CLOSE_BRACKET && cur.place === 'items-first') cur.place = 'after-value';
            else if (c === COMMA || c === CLOSE_BRACKET) cur.place = 'broken';
            else {
              const state = this.#state;
              if (state.mode === 'slow' && c === OPEN_BRACE) {
                this.#state = { mode: 'fast', way: state.way, carry: '' };
                return i;
              }
              beginValue(cur, c, 'item', true);
              from = i;
            }
            break;
          case 'items-next':
            cur.place = c === COMMA ? 'items-element' : c === CLOSE_BRACKET ? 'after-value' : 'broken';
            break;
          case 'after-value':
            cur.place = c === COMMA ? 'key' : c === CLOSE_BRACE ? 'done' : 'broken';
            break;
          case 'in-key':
          case 'member':
          case 'item':
          case 'done':
          case 'broken':
            cur.place = 'broken';
            break;
        }
      }
      i++;
    }
    // Keep what of the current value or key this chunk held, for the next one.
    if (cur.keeping && from >= 0) cur.pieces.push(s.slice(from));
    return -1;
  }

  /** The key whose closing quote is at `close` in `s` (its text from `from`) is complete. */
  #finishKey(cur: Cursor, s: string, from: number, close: number): void {
    cur.pieces.push(s.slice(from, close));
    const key = decodeKey(cur.pieces.length === 1 ? (cur.pieces[0] ?? '') : cur.pieces.join(''));
    cur.pieces = [];
    cur.keeping = false;
    if (key === undefined) cur.place = 'broken';
    else {
      cur.key = key;
      cur.place = 'colon';
    }
  }

  /** The current value ended just before `end`, its kept text (if any) starting at `from` in `s`. */
  #finishValue(cur: Cursor, s: string, from: number, end: number): void {
    const kept = cur.keeping;
    let text = '';
    if (kept) {
      cur.pieces.push(s.slice(from, end));
      text = cur.pieces.length === 1 ? (cur.pieces[0] ?? '') : cur.pieces.join('');
    }
    cur.keeping = false;
    cur.pieces = [];
    cur.scalar = false;
    if (cur.place !== 'item') {
      cur.place = 'after-value';
      if (kept) this.#keepMember(cur.key, text);
      return;
    }
    cur.place = 'items-next';
    const value = this.#parseElement(text);
    this.stats.slow++;
    const state = this.#state;
    if (state.mode === 'scanning') {
      const opening = ELEMENT_OPENING.exec(text)?.[0];
      if (opening !== undefined) this.#state = { mode: 'slow', cursor: cur, way: { pattern: `},${opening}`, misses: 0 } };
    } else if (state.mode === 'rereading') this.#state = { mode: 'slow', cursor: cur, way: state.way };
    this.#handlers.onItem(value);
  }

  /** Parses a top-level value other than the items array; hands over the metadata (`end` reports one that is no JSON). */
  #keepMember(key: string, text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#invalid ??= key;
      return;
    }
    if (key !== 'metadata' || this.#invalid !== undefined) return;
    this.#metadata = { value };
    this.#handlers.onMetadata?.(value);
  }

  /**
   * Reads elements the fast way: `s` from `start` continues the element whose text so far is
   * `state.carry`. Returns undefined once `s` is read (the unfinished element carried), or where to
   * read on character by character when the fast way gave up (from the start of the element it misread).
   */
  #fastScan(state: Extract<Mode, { mode: 'fast' }>, s: string, start: number): Resume | undefined {
    const { pattern } = state.way;
    const carried = state.carry;
    // The element's text begins at `from` in `text`; its end is searched for from `searchFrom`.
    const text = carried === '' ? s : carried + s.slice(start);
    let from = carried === '' ? start : 0;
    let searchFrom = carried === '' ? start + 1 : Math.max(1, carried.length - pattern.length + 1);
    for (;;) {
      const close = text.indexOf(pattern, searchFrom);
      if (close < 0) {
        if (text.length - from > FAST_CARRY_LIMIT) return this.#giveUp(text, from, undefined);
        state.carry = text.slice(from);
        return undefined;
      }
      let value: unknown;
      try {
        value = this.#parse(text.slice(from, close + 1));
      } catch (err) {
        if (!(err instanceof SyntaxError)) throw err;
        const misses = state.way.misses + 1;
        return this.#giveUp(text, from, misses < FAST_MISSES_LIMIT ? { pattern, misses } : undefined);
      }
      this.stats.fast++;
      this.#handlers.onItem(value);
      // `text[close + 1]` is the comma, and the next element begins right after it.
      from = close + 2;
      searchFrom = from + 1;
    }
  }

  /**
   * Hands the element at `text[from]` to the character-by-character reading: to be read again, the
   * fast way kept as `way`, or for the rest of the answer when there is no `way`.
   */
  #giveUp(text: string, from: number, way: FastWay | undefined): Resume {
    const cursor = cursorAt('items-element');
    this.#state = way === undefined ? { mode: 'given-up', cursor } : { mode: 'rereading', cursor, way };
    return { text, at: from };
  }

  /** Parses an element read character by character, whose end is certain: a text that is no JSON is thrown as {@link ElementNotJson}. */
  #parseElement(text: string): unknown {
    try {
      return this.#parse(text);
    } catch (err) {
      if (err instanceof SyntaxError) throw new ElementNotJson(this.stats.fast + this.stats.slow, err);
      throw err;
    }
  }

  /**
   * Parses an element's text, leaving out its managedFields when the Kind allows; a text that is no
   * JSON throws the SyntaxError of its whole text, as if nothing had been left out.
   */
  #parse(text: string): unknown {
    const next = this.#handlers.metadataFollowedBy;
    if (next === undefined) return parseApiJson(text);
    const lean = withoutManagedFields(text, next);
    if (lean === text) return parseApiJson(text);
    try {
      return parseApiJson(lean);
    } catch {
      return parseApiJson(text);
    }
  }
}

/** Starts a value at `c` in the place it belongs to, its text kept when `keep`. */
function beginValue(cur: Cursor, c: number, place: 'member' | 'item', keep: boolean): void {
  cur.place = place;
  cur.keeping = keep;
  cur.pieces = [];
  if (c === QUOTE) cur.inString = true;
  else if (c === OPEN_BRACE || c === OPEN_BRACKET) cur.depth = 1;
  else cur.scalar = true;
}

/**
 * Where the string that runs from `from` closes, or -1 when it runs past the end of `s` (then
 * `cur.escaped` says whether `s` ended on an unpaired backslash). A quote closes the string unless an
 * odd number of backslashes stands right before it.
 */
function stringEnd(cur: Cursor, s: string, from: number): number {
  let i = from;
  if (cur.escaped) {
    if (i >= s.length) return -1;
    cur.escaped = false;
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
      cur.escaped = odd;
      return -1;
    }
    if (!odd) return quote;
    i = quote + 1;
  }
}
