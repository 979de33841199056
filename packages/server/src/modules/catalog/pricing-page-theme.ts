import { contrast, isHexColor, readableOn, AA_TEXT_CONTRAST } from '@tollgate/pricing';
import type { StorefrontTheme } from './storefront.js';

/**
 * The seller's theme for the hosted pricing page, made safe and legible. Pure.
 *
 * The API validates a theme on the way in; this checks again on the way out (a row written by an
 * older version, or by hand, must not break the page's CSP or its contrast) and drops what does
 * not fit rather than failing the page. Colours keep WCAG AA (4.5:1) for every text they carry:
 * - text on the accent (buttons, the badge, the chosen period) and on the page background (the
 *   title, the switch's legend) is white or near-black, whichever reads (black as a last resort);
 * - the accent is used as text on the white cards (prices, links) only where it reads there,
 *   else the page's own blue.
 */

export const DEFAULT_ACCENT = '#1e40af';
export const DEFAULT_BACKGROUND = '#f5f6f8';
const WHITE = '#ffffff';
const INK = '#111827';
const BLACK = '#000000';
/** The trial pill behind accent-coloured text: the text must read on it too, not only on white. */
const SOFT = '#eef2ff';
const SYSTEM_FONTS = 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif';
const FONT_FAMILY = /^[A-Za-z0-9][A-Za-z0-9 -]{0,62}$/;
const DATA_IMAGE = /^data:image\/(png|svg\+xml|webp|jpeg);base64,[A-Za-z0-9+/=]+$/;

export interface PageTheme {
  /** The accent as a fill: buttons, the badge, the chosen period, the highlighted card's border. */
  accent: string;
  /** Text on the accent. */
  onAccent: string;
  /** The accent as text on the white cards (and their soft pill), or the default blue. */
  accentInk: string;
  background: string;
  /** Text straight on the background. */
  onBackground: string;
  /** The CSS font-family list: the seller's family, quoted, before the system stack. */
  fontStack: string;
  /** The logo's URL (https or a data: image), or null. */
  logoUrl: string | null;
  /** What img-src must allow for the logo beyond 'self' data:, an https origin; or null. */
  imageOrigin: string | null;
}

/** An https URL's origin, or null for anything else (an http URL, a malformed one). */
function httpsOrigin(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && !/[\s"'<>;,]/.test(url) ? parsed.origin : null;
  } catch {
    return null;
  }
}

export function pageTheme(theme: StorefrontTheme | undefined): PageTheme {
  const accent = isHexColor(theme?.accentColor) ? theme.accentColor.toLowerCase() : DEFAULT_ACCENT;
  const background = isHexColor(theme?.backgroundColor) ? theme.backgroundColor.toLowerCase() : DEFAULT_BACKGROUND;
  const font = typeof theme?.fontFamily === 'string' && FONT_FAMILY.test(theme.fontFamily) ? theme.fontFamily : null;
  let logoUrl: string | null = null;
  let imageOrigin: string | null = null;
  const logo = theme?.logoUrl;
  if (typeof logo === 'string') {
    if (DATA_IMAGE.test(logo)) {
      logoUrl = logo;
    } else if (logo.length <= 2048) {
      imageOrigin = httpsOrigin(logo);
      if (imageOrigin !== null) logoUrl = logo;
    }
  }
  return {
    accent,
    onAccent: readableOn(accent, [WHITE, INK, BLACK]),
    accentInk: contrast(accent, SOFT) >= AA_TEXT_CONTRAST ? accent : DEFAULT_ACCENT,
    background,
    onBackground: readableOn(background, [INK, WHITE, BLACK]),
    fontStack: font === null ? SYSTEM_FONTS : `"${font}",${SYSTEM_FONTS}`,
    logoUrl,
    imageOrigin,
  };
}

/** The theme as CSS custom properties, which the page's stylesheet reads. */
export function themeCss(theme: PageTheme): string {
  return [
    `:root{--accent:${theme.accent};--on-accent:${theme.onAccent};--accent-ink:${theme.accentInk};`,
    `--bg:${theme.background};--on-bg:${theme.onBackground};--font:${theme.fontStack}}`,
  ].join('');
}
