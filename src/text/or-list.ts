/** Items joined as a sentence lists them: `a`, `a or b`, `a, b or c`. */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}
