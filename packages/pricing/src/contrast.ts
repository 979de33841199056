/**
 * Colour contrast by WCAG 2.1: a seller picks their own colours (the hub's accent, the pricing
 * page's theme), and every surface must still read at AA. Pure; runs in Node and in browsers.
 */

/** The contrast ratio AA asks of normal text. */
export const AA_TEXT_CONTRAST = 4.5;

const HEX = /^#[0-9a-fA-F]{6}$/;

/** A #rrggbb colour (the only form the API accepts for a seller's colours). */
export function isHexColor(value: unknown): value is string {
  return typeof value === 'string' && HEX.test(value);
}

/** Relative luminance of #rrggbb (WCAG 2.1): 0 for black, 1 for white. */
export function luminance(hex: string): number {
  if (!HEX.test(hex)) throw new RangeError(`Not a #rrggbb colour: ${hex}`);
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of two #rrggbb colours, from 1 (the same) to 21 (black on white); order does not matter. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The first of `candidates` that reads on `background` at `minimum` or better; else the
 * candidate with the highest contrast. Pass a last resort of #000000 or #ffffff to always meet
 * AA: one of the two reaches at least 4.58:1 on any colour.
 */
export function readableOn(background: string, candidates: readonly string[], minimum: number = AA_TEXT_CONTRAST): string {
  if (candidates.length === 0) throw new RangeError('readableOn needs at least one candidate colour');
  const found = candidates.find((c) => contrast(c, background) >= minimum);
  if (found !== undefined) return found;
  return candidates.reduce((best, c) => (contrast(c, background) > contrast(best, background) ? c : best));
}
