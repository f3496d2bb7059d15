// A small protobuf encoder for the tests of the protobuf list reader: messages written as nested
// tables of [field number, value], and the envelope an API server wraps its answers in.

/** One field: a string or bytes (length-delimited), an integer (varint), or a nested message. */
export type Field = readonly [number, string | number | bigint | Uint8Array | readonly Field[]];

function varint(value: bigint): number[] {
  let v = value < 0n ? value + 2n ** 64n : value;
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return out;
}

function lengthDelimited(field: number, bytes: Uint8Array): number[] {
  return [...varint(BigInt(field * 8 + 2)), ...varint(BigInt(bytes.length)), ...bytes];
}

/** The bytes of a message made of `fields`, in the order given. */
export function encode(fields: readonly Field[]): Uint8Array {
  const out: number[] = [];
  for (const [field, value] of fields) {
    if (typeof value === 'number' || typeof value === 'bigint') out.push(...varint(BigInt(field * 8)), ...varint(BigInt(value)));
    else if (typeof value === 'string') out.push(...lengthDelimited(field, new TextEncoder().encode(value)));
    else if (value instanceof Uint8Array) out.push(...lengthDelimited(field, value));
    else out.push(...lengthDelimited(field, encode(value)));
  }
  return Uint8Array.from(out);
}

/** An API server's protobuf answer: `k8s\0`, then the Kind and the object's bytes. */
export function envelope(kind: string, object: Uint8Array, extra: readonly Field[] = []): Uint8Array {
  const body = encode([
    [
      1,
      [
        [1, 'v1'],
        [2, kind],
      ],
    ],
    [2, object],
    ...extra,
  ]);
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...body]);
}

/** A map entry: key, then value (a string, or a message such as a Quantity). */
export function entry(key: string, value: string | readonly Field[]): readonly Field[] {
  return [
    [1, key],
    [2, value],
  ];
}

/** A Quantity message holding `text`. */
export function quantity(text: string): readonly Field[] {
  return [[1, text]];
}
