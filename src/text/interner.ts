/**
 * One copy of equal strings and equal string maps among the records a list read keeps.
 *
 * `JSON.parse` makes a new string for every value it meets, so 50,000 pods of a few thousand
 * workloads each hold their own copy of the same node name, the same label map and the same injection
 * annotations: about 200 bytes a pod that no check needs twice. A run reads each list through one
 * interner and keeps the first copy of each value. It remembers at most `limit` distinct values
 * (strings and maps apart): past that it hands values back as they are, so a cluster of all-distinct
 * values costs a bounded table and nothing else.
 *
 * @module
 */

/** The most distinct strings, and apart the most distinct maps, one interner remembers. */
export const INTERNER_LIMIT = 65_536;

/** The one copy of each value seen so far (see the module's note). */
export class Interner {
  readonly #strings = new Map<string, string>();
  readonly #maps = new Map<string, Readonly<Record<string, string>>>();
  readonly #limit: number;
  readonly #copy: (value: string) => string;

  /** `copy` makes the string kept from the first one met (the same string by default). */
  constructor(limit = INTERNER_LIMIT, copy: (value: string) => string = (value) => value) {
    this.#limit = limit;
    this.#copy = copy;
  }

  /** The first string equal to `value` this interner kept, or a copy of `value`, now kept. */
  string(value: string): string {
    const kept = this.#strings.get(value);
    if (kept !== undefined) return kept;
    const copy = this.#copy(value);
    if (this.#strings.size < this.#limit) this.#strings.set(copy, copy);
    return copy;
  }

  /**
   * The first map equal to `map` (same keys in the same order, same values) this interner kept, or
   * `map` with its keys and values interned, now kept. The map returned is frozen: it is shared.
   */
  map(map: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    const keys = Object.keys(map);
    if (keys.length === 0) return EMPTY_MAP;
    // Each key and value led by its length: no two different maps give the same text.
    let key = '';
    for (const k of keys) {
      const v = map[k] ?? '';
      key += `${k.length}:${k}${v.length}:${v}`;
    }
    const kept = this.#maps.get(key);
    if (kept !== undefined) return kept;
    const shared: Record<string, string> = {};
    for (const k of keys) shared[this.string(k)] = this.string(map[k] ?? '');
    Object.freeze(shared);
    if (this.#maps.size < this.#limit) this.#maps.set(key, shared);
    return shared;
  }
}

/** The one empty map every interner hands out. */
const EMPTY_MAP: Readonly<Record<string, string>> = Object.freeze({});
