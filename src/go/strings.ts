/**
 * Go's whitespace rules. `strings.Fields` and `strings.TrimSpace` treat Unicode White_Space as space
 * (U+0085 and U+00A0 included, U+FEFF not), which JavaScript's `\s` and `trim()` do not.
 *
 * @module
 */

/**
 * Go `strings.Fields`: `s` split around runs of Unicode White_Space (ASCII `\t \n \v \f \r` and space,
 * U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), with no empty fields.
 * Unlike JS `\s`, U+FEFF is not a separator; U+200B is not one either.
 */
export function goFields(s: string): string[] {
  return s.split(/\p{White_Space}+/u).filter((field) => field !== '');
}

/** Go `strings.TrimSpace`: leading and trailing Unicode White_Space removed (U+FEFF is kept). */
export function goTrimSpace(s: string): string {
  return s.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');
}
