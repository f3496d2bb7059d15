/**
 * The protobuf wire format, read field by field within bounds. The API server answers lists of its
 * built-in Kinds in protobuf when asked (see `list-reader.ts`); this reader takes those bytes as
 * hostile as any other: every length is checked against the end of the message it belongs to, a
 * varint may not run past ten bytes, and groups (wire types 3 and 4, which no Kubernetes message uses)
 * are refused. A field the doctor does not read is skipped by its length, never looked into.
 *
 * @module
 */

/** Bytes that are not the protobuf message they should be: thrown by the reader, caught by the list reader. */
export class ProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufError';
  }
}

/**
 * Bytes that end inside a varint. Within a message it is an error like any other; the list reader,
 * which reads a field's header from the bytes received so far, takes it as "wait for more".
 */
export class ProtobufCut extends ProtobufError {
  constructor() {
    super('a varint runs past the end of its message');
  }
}

/** The wire types a Kubernetes message uses. */
export const VARINT = 0;
const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** Two to the 32nd: the weight of the upper half of a 64-bit integer. */
const TWO_32 = 2 ** 32;

/**
 * One message's bytes, `bytes[start, end)`, read front to back. `next` reads a field's key; then the
 * caller reads its value with the method of its type, or `skip`s it.
 */
export class ProtoReader {
  readonly bytes: Buffer;
  end: number;
  pos: number;
  /** The wire type of the field whose key `next` read last. */
  wireType = 0;
  /** The low and high 32 bits of the varint {@link readBits} read last. */
  private low = 0;
  private high = 0;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  /** The next field's number, its wire type in {@link wireType}; 0 at the end of the message. */
  next(): number {
    if (this.pos >= this.end) return 0;
    const key = this.varint();
    const field = Math.floor(key / 8);
    this.wireType = key % 8;
    if (field === 0) throw new ProtobufError('a field numbered 0');
    return field;
  }

  /**
   * A varint, unsigned, as a number: exact to 2^53, which covers every length, port, count and
   * timestamp the doctor reads.
   */
  varint(): number {
    this.readBits();
    return (this.high >>> 0) * TWO_32 + (this.low >>> 0);
  }

  /** Reads a varint of up to ten bytes, its 64 bits as two 32-bit halves (so that no bit is rounded away). */
  private readBits(): void {
    const { bytes, end } = this;
    let low = 0;
    let high = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) throw new ProtobufCut();
      const b = bytes[this.pos++] ?? 0;
      const bits = b & 0x7f;
      if (i < 4) low |= bits << (7 * i);
      else if (i === 4) {
        low |= bits << 28;
        high |= bits >>> 4;
      } else high |= bits << (7 * i - 32);
      if (b < 0x80) {
        this.low = low;
        this.high = high;
        return;
      }
    }
    throw new ProtobufError('a varint longer than ten bytes');
  }

  /** The bounds of a length-delimited value, which the reader then steps over. */
  span(): { readonly start: number; readonly end: number } {
    if (this.wireType !== LENGTH_DELIMITED) throw new ProtobufError(`wire type ${this.wireType} where a length-delimited value belongs`);
    const length = this.varint();
    const start = this.pos;
    if (length > this.end - start) throw new ProtobufError('a length-delimited value runs past the end of its message');
    this.pos = start + length;
    return { start, end: this.pos };
  }

  /**
   * Steps into a length-delimited value: this reader then reads it as a message, to its end, and
   * {@link leave} with what `enter` returned steps back out. Costs no reader of its own, which matters
   * for the many small messages of an object (each label is one).
   */
  enter(): number {
    const { start, end } = this.span();
    const outer = this.end;
    this.pos = start;
    this.end = end;
    return outer;
  }

  /** Steps out of the message {@link enter} stepped into, to the field after it. */
  leave(outer: number): void {
    this.pos = this.end;
    this.end = outer;
  }

  /**
   * A string field, decoded as UTF-8 (a malformed sequence reads as U+FFFD) into a string of its own:
   * one native call, which also keeps a kept name or uid one flat string rather than a chain of the
   * pieces it was joined from.
   */
  string(): string {
    const { start, end } = this.span();
    return this.bytes.toString(undefined, start, end);
  }

  /**
   * A varint field (an int32, int64 or bool), as a number. A negative one arrives as the 64 bits of
   * its two's complement.
   */
  number(): number {
    if (this.wireType !== VARINT) throw new ProtobufError(`wire type ${this.wireType} where a varint belongs`);
    this.readBits();
    if (this.high >>> 31 === 0) return (this.high >>> 0) * TWO_32 + (this.low >>> 0);
    return -((~this.high >>> 0) * TWO_32 + (~this.low >>> 0) + 1);
  }

  /**
   * A varint field read as an int32 or an enum: its low 32 bits, signed, as Go's decoding truncates
   * it.
   */
  int32(): number {
    if (this.wireType !== VARINT) throw new ProtobufError(`wire type ${this.wireType} where a varint belongs`);
    this.readBits();
    return this.low | 0;
  }

  /**
   * How many bytes the value of the field whose key was read last takes beyond what this reads of it:
   * a length-delimited value's length (read here), a fixed width; 0 for a varint, read here whole.
   */
  valueLength(): number {
    switch (this.wireType) {
      case VARINT:
        this.readBits();
        return 0;
      case LENGTH_DELIMITED:
        return this.varint();
      case FIXED64:
        return 8;
      case FIXED32:
        return 4;
      default:
        throw new ProtobufError(`wire type ${this.wireType}, which no Kubernetes message uses`);
    }
  }

  /** Steps over the value of the field whose key was read last. */
  skip(): void {
    if (this.wireType === LENGTH_DELIMITED) {
      this.span();
      return;
    }
    const n = this.valueLength();
    if (n > this.end - this.pos) throw new ProtobufError('a fixed-width value runs past the end of its message');
    this.pos += n;
  }
}

/** Reads the length-delimited value at `r` as a message, by `decode`, on the same reader (see {@link ProtoReader.enter}). */
export function inner<T>(r: ProtoReader, decode: (r: ProtoReader) => T): T {
  const outer = r.enter();
  const value = decode(r);
  r.leave(outer);
  return value;
}
