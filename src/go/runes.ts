/** Small helpers shared by the Go-compatible encoders of this module. */

const HEX = '0123456789abcdef';

/** `n` as `width` lower-case hex digits. */
export function hex(n: number, width: number): string {
  let out = '';
  for (let shift = (width - 1) * 4; shift >= 0; shift -= 4) out += HEX[(n >>> shift) & 0xf];
  return out;
}

/** True for a UTF-16 surrogate code point, which only occurs in a JS string when it is unpaired. */
export function isSurrogate(cp: number): boolean {
  return cp >= 0xd800 && cp <= 0xdfff;
}
