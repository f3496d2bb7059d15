/**
 * What every finding code looks like: two or three capitals, its prefix (captured), then three digits
 * (`CB004`, `API001`).
 */
export const CODE_SHAPE = /^([A-Z]{2,3})\d{3}$/;

/** Whether `text` has the shape of a finding code. */
export function isCodeShaped(text: string): boolean {
  return CODE_SHAPE.test(text);
}
