/**
 * The protobuf wire format written: just what the doctor sends (a gRPC health request) and what its
 * test servers answer, field by field in the order given.
 *
 * @module
 */

import { LENGTH_DELIMITED, VARINT } from './reader.ts';

/** Appends `value` (a non-negative integer below 2^53) as a varint. */
function varint(value: number, out: number[]): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** A message of the given fields: a string is written length-delimited (UTF-8), a number as a varint. */
export function writeMessage(fields: readonly (readonly [number, string | number])[]): Buffer {
  const out: number[] = [];
  for (const [number, value] of fields) {
    if (typeof value === 'number') {
      varint(number * 8 + VARINT, out);
      varint(value, out);
    } else {
      const bytes = Buffer.from(value, 'utf8');
      varint(number * 8 + LENGTH_DELIMITED, out);
      varint(bytes.length, out);
      out.push(...bytes);
    }
  }
  return Buffer.from(out);
}
