/**
 * A Kubernetes list answer in protobuf, read as it streams in: the envelope (`k8s\0`, then the Kind
 * and the list's bytes), then the list's metadata, handed over the moment it is complete (an API
 * server writes it before the items, so the continue token is known while the items still arrive),
 * then each item, decoded by the Kind's decoder the moment its last byte has arrived. Only the item
 * being read is held (with the chunk it lies in), never a whole page.
 *
 * Every length is checked against what holds it before anything waits for it: an item may not run
 * past the list, nor be larger than {@link MAX_ITEM_BYTES}. A body that is not one complete envelope
 * holding a list of the expected Kind is an error at `end`; an item whose bytes are not its Kind is
 * thrown as {@link ElementNotProtobuf} by `push`.
 *
 * @module
 */

import type { ListEnd, ListHandlers } from './list-stream.ts';
import type { Decoded } from '../../protobuf/decode.ts';
import { LENGTH_DELIMITED, ProtoReader, ProtobufCut, ProtobufError } from '../../protobuf/reader.ts';
import { shortName, type FieldSpec, type MessageType } from '../../protobuf/schema.ts';
import { ENVELOPE_MAGIC, UNKNOWN, hasMagic, kindOf, listMetaOf } from './apimachinery.ts';

/**
 * The largest item read: etcd stores no object over 1.5 MiB, and an object grows little from its
 * stored form. A length beyond it ends the read at once rather than waiting for that many bytes.
 */
export const MAX_ITEM_BYTES = 16 * 1024 * 1024;

/** Decodes one item's bytes, `bytes[start, end)`, to the JSON shape its projection reads. */
export type ItemDecoder = (bytes: Uint8Array, start: number, end: number) => Decoded;

/** A list Kind's message as declared (`PodList`): its metadata and its items. */
export type ListMessage = MessageType<{
  readonly metadata: FieldSpec;
  readonly items: FieldSpec & { readonly type: MessageType };
}>;

/**
 * How a list may be read beside JSON: for a built-in Kind, in protobuf, as `list` declares it, each
 * item decoded by `decode`. The API server then answers in protobuf, or in JSON when it cannot (an
 * aggregated API, a proxy that rewrites); the answer's content type says which.
 */
export interface ProtobufList {
  /** The list's message: the answer's envelope must name it (`PodList`), and it says where items are. */
  readonly list: ListMessage;
  readonly decode: ItemDecoder;
}

/** The envelope's fields the reader looks at, by number. */
const ENVELOPE = {
  typeMeta: UNKNOWN.fields.typeMeta.number,
  raw: UNKNOWN.fields.raw.number,
  contentEncoding: UNKNOWN.fields.contentEncoding.number,
} as const;

/** An item of the list whose bytes are not the Kind they should be: the answer is no list of it. */
export class ElementNotProtobuf extends Error {
  /** The item's position in the answer's items, counted from 0. */
  readonly index: number;
  /** The Kind it should be. */
  readonly kind: string;
  override readonly cause: ProtobufError;

  constructor(index: number, kind: string, cause: ProtobufError) {
    super(`the item at index ${index} is not a ${kind} in protobuf: ${cause.message}`, { cause });
    this.name = 'ElementNotProtobuf';
    this.index = index;
    this.kind = kind;
    this.cause = cause;
  }
}

/** A field's key and, for a length-delimited one, its length; `size` is how many bytes they take. */
interface Header {
  readonly field: number;
  readonly wireType: number;
  /** The bytes of the value after the header: its length, or a fixed width; 0 for a varint (read in the header). */
  readonly length: number;
  readonly size: number;
}

/** The header of the field at `bytes[at]`, or undefined when the bytes end (at `end`) inside it. */
function headerAt(bytes: Uint8Array, at: number, end: number): Header | undefined {
  const r = new ProtoReader(bytes, at, end);
  try {
    const field = r.next();
    if (field === 0) return undefined;
    const length = r.valueLength();
    return { field, wireType: r.wireType, length, size: r.pos - at };
  } catch (err) {
    if (err instanceof ProtobufCut) return undefined;
    throw err;
  }
}

/** How many bytes a field's header takes at most: two varints of ten bytes. */
const MAX_HEADER = 20;

/** Where the reading is: before the magic, in the envelope before or after the list, or in the list. */
type Phase = 'magic' | 'envelope' | 'list' | 'after-list';

/**
 * Feed it the answer's bytes with `push`, then call `end`; the handlers are those of the JSON splitter.
 * The chunks are read where they lie: only a field that runs from one chunk into the next is copied,
 * into one buffer the reader keeps for that.
 */
export class ProtobufListReader {
  readonly #handlers: ListHandlers;
  readonly #decode: ItemDecoder;
  /** The Kind of the items, and the envelope's Kind for a list of them (`Pod`, `PodList`). */
  readonly #kind: string;
  readonly #listKind: string;
  /** The list's fields by number: its metadata and its items. */
  readonly #metadataField: number;
  readonly #itemsField: number;
  /** The chunks not read through yet: the first from `#pos`. */
  #chunks: Buffer[] = [];
  /**
   * Where a field that runs from one chunk into the next is copied to be read: kept from field to
   * field, since what is read from it (strings, numbers) is copied out of it.
   */
  #scratch: Buffer = Buffer.alloc(4096);
  #pos = 0;
  /** The bytes not read yet, over all the chunks. */
  #available = 0;
  /** How many bytes the next step needs before it can be taken. */
  #need: number = ENVELOPE_MAGIC.length;
  /** Where the reading stands in the whole answer. */
  #offset = 0;
  #phase: Phase = 'magic';
  /** Where the list's bytes end in the whole answer, once the envelope has said. */
  #listEnd = 0;
  #listSeen = false;
  #envelopeKind: string | undefined;
  #metadata: unknown;
  #items = 0;
  /** Why the answer is no list, once that is known; what arrives after it is not read. */
  #broken: string | undefined;

  constructor(protobuf: ProtobufList, handlers: ListHandlers) {
    const { list, decode } = protobuf;
    this.#kind = shortName(list.fields.items.type);
    this.#listKind = shortName(list);
    this.#metadataField = list.fields.metadata.number;
    this.#itemsField = list.fields.items.number;
    this.#decode = decode;
    this.#handlers = handlers;
  }

  /** Reads the next chunk of the answer. */
  push(chunk: Uint8Array): void {
    if (this.#broken !== undefined || chunk.length === 0) return;
    this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.#available += chunk.length;
    if (this.#available < this.#need) return;
    try {
      this.#read();
    } catch (err) {
      if (!(err instanceof ProtobufError)) throw err;
      this.#broken = err.message;
      this.#chunks = [];
    }
  }

  /** The end of the answer: its metadata, or why it is not a list of the Kind. */
  end(): { readonly ok: true; readonly end: ListEnd } | { readonly ok: false; readonly why: string } {
    if (this.#broken !== undefined) return { ok: false, why: this.#broken };
    if (this.#phase === 'magic') return { ok: false, why: 'it is not a protobuf answer of an API server' };
    if (!this.#listSeen) return { ok: false, why: 'it holds no list' };
    if (this.#phase !== 'after-list' || this.#available > 0) return { ok: false, why: 'it is cut short' };
    return { ok: true, end: { metadata: this.#metadata } };
  }

  /** The next `n` bytes (at most what there is), copied to the start of the scratch bytes, which are returned. */
  #copy(n: number): Buffer {
    const length = Math.min(n, this.#available);
    if (this.#scratch.length < length) this.#scratch = Buffer.alloc(Math.max(length, 2 * this.#scratch.length));
    const out = this.#scratch;
    let at = 0;
    let from = this.#pos;
    for (const chunk of this.#chunks) {
      at += chunk.copy(out, at, from, Math.min(chunk.length, from + length - at));
      from = 0;
      if (at === length) break;
    }
    return out;
  }

  /** Steps over the next `n` bytes, dropping the chunks read through. */
  #advance(n: number): void {
    this.#available -= n;
    this.#offset += n;
    let left = n;
    while (left > 0) {
      const first = this.#chunks[0];
      if (first === undefined) return;
      const rest = first.length - this.#pos;
      if (left < rest) {
        this.#pos += left;
        return;
      }
      left -= rest;
      this.#chunks.shift();
      this.#pos = 0;
    }
    if (this.#chunks[0]?.length === this.#pos) {
      this.#chunks.shift();
      this.#pos = 0;
    }
  }

  /** The header of the next field, or undefined when its bytes have not all arrived. */
  #header(): Header | undefined {
    const first = this.#chunks[0];
    if (first === undefined) return undefined;
    if (first.length - this.#pos >= MAX_HEADER || this.#chunks.length === 1) return headerAt(first, this.#pos, first.length);
    return headerAt(this.#copy(MAX_HEADER), 0, Math.min(MAX_HEADER, this.#available));
  }

  /** Reads as far as the bytes go, setting `#need` for the next step. */
  #read(): void {
    for (;;) {
      const available = this.#available;
      if (this.#phase === 'magic') {
        if (available < ENVELOPE_MAGIC.length) return this.#wait(ENVELOPE_MAGIC.length);
        if (!hasMagic(this.#copy(ENVELOPE_MAGIC.length))) throw new ProtobufError('it is not a protobuf answer of an API server');
        this.#advance(ENVELOPE_MAGIC.length);
        this.#phase = 'envelope';
        continue;
      }
      if (this.#phase === 'list' && this.#offset === this.#listEnd) {
        this.#phase = 'after-list';
        continue;
      }
      if (available === 0) return this.#wait(1);
      const header = this.#header();
      if (header === undefined) return this.#wait(available + 1);
      if (this.#phase === 'envelope' && header.field === ENVELOPE.raw) {
        if (header.wireType !== LENGTH_DELIMITED) throw new ProtobufError('the envelope holds its object in the wrong wire type');
        if (this.#envelopeKind !== this.#listKind)
          throw new ProtobufError(`it holds a ${this.#envelopeKind ?? 'value of no Kind'}, not a ${this.#listKind}`);
        this.#advance(header.size);
        this.#listEnd = this.#offset + header.length;
        this.#listSeen = true;
        this.#phase = 'list';
        continue;
      }
      if (this.#phase === 'list' && this.#offset + header.size + header.length > this.#listEnd)
        throw new ProtobufError('a field runs past the end of the list');
      if (header.length > MAX_ITEM_BYTES)
        throw new ProtobufError(`a field of ${header.length} bytes, larger than any object an API server sends`);
      if (available < header.size + header.length) return this.#wait(header.size + header.length);
      this.#advance(header.size);
      // The value is read where it lies when its chunk holds it whole, else from a copy.
      const first = this.#chunks[0];
      const inPlace = first !== undefined && first.length - this.#pos >= header.length;
      const bytes = inPlace ? first : this.#copy(header.length);
      const start = inPlace ? this.#pos : 0;
      this.#advance(header.length);
      if (this.#phase === 'list') this.#listField(header, bytes, start, start + header.length);
      else this.#envelopeField(header, bytes, start, start + header.length);
    }
  }

  #wait(bytes: number): void {
    this.#need = bytes;
  }

  /** A field of the envelope other than the list: the Kind, or an encoding, which an API server never sets. */
  #envelopeField(header: Header, bytes: Uint8Array, start: number, end: number): void {
    if (header.wireType !== LENGTH_DELIMITED) return;
    if (header.field === ENVELOPE.raw) throw new ProtobufError('it holds its list twice');
    if (header.field === ENVELOPE.typeMeta && this.#phase === 'envelope') this.#envelopeKind = kindOf(bytes, start, end);
    else if (header.field === ENVELOPE.contentEncoding && end > start)
      throw new ProtobufError('its list is in an encoding the doctor does not read');
  }

  /** A field of the list: its metadata, or an item. */
  #listField(header: Header, bytes: Uint8Array, start: number, end: number): void {
    if (header.wireType !== LENGTH_DELIMITED) return;
    if (header.field === this.#metadataField) {
      this.#metadata = listMetaOf(bytes, start, end);
      this.#handlers.onMetadata?.(this.#metadata);
    } else if (header.field === this.#itemsField) {
      const index = this.#items++;
      let item: Decoded;
      try {
        item = this.#decode(bytes, start, end);
      } catch (err) {
        if (err instanceof ProtobufError) throw new ElementNotProtobuf(index, this.#kind, err);
        throw err;
      }
      this.#handlers.onItem(item);
    }
  }
}
