import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { contrast } from '@tollgate/pricing';
import { DEFAULT_ACCENT, DEFAULT_BACKGROUND, pageTheme, themeCss, type PageTheme } from './pricing-page-theme.js';
import type { StorefrontTheme } from './storefront.js';

const SYSTEM = 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif';
const LOGO_DATA = 'data:image/svg+xml;base64,PHN2Zy8+';

describe("pageTheme: the seller's theme, safe and legible", () => {
  const defaults: PageTheme = {
    accent: DEFAULT_ACCENT,
    onAccent: '#ffffff',
    accentInk: DEFAULT_ACCENT,
    background: DEFAULT_BACKGROUND,
    onBackground: '#111827',
    fontStack: SYSTEM,
    logoUrl: null,
    imageOrigin: null,
  };
  const cases: Array<[string, StorefrontTheme | undefined, Partial<PageTheme>]> = [
    ['no theme: the page’s own colours and the system fonts', undefined, {}],
    ['an empty theme: the same', {}, {}],
    ['a dark accent: white text on it, and it is the text colour of prices too', { accentColor: '#4F46E5' }, { accent: '#4f46e5', accentInk: '#4f46e5' }],
    // Yellow: near-black text on it, and prices in the default blue (yellow on white does not read).
    ['a light accent: near-black text on it, the default blue for text on white', { accentColor: '#fde047' }, { accent: '#fde047', onAccent: '#111827' }],
    // #777: white 4.48 and #111827 4.0 both miss; black 4.69 reads.
    ['a mid-grey accent: black text on it', { accentColor: '#777777' }, { accent: '#777777', onAccent: '#000000' }],
    ['a dark background: white title on it', { backgroundColor: '#1f2937' }, { background: '#1f2937', onBackground: '#ffffff' }],
    ['a pale background: near-black title', { backgroundColor: '#F5F3FF' }, { background: '#f5f3ff' }],
    ['a font: quoted, before the system stack', { fontFamily: 'IBM Plex Sans' }, { fontStack: `"IBM Plex Sans",${SYSTEM}` }],
    ['a font with CSS in it: ignored', { fontFamily: 'x"}body{color:red' }, {}],
    [
      'an https logo: its origin is what img-src allows',
      { logoUrl: 'https://cdn.shop.example:8443/brand/logo.svg?v=2' },
      { logoUrl: 'https://cdn.shop.example:8443/brand/logo.svg?v=2', imageOrigin: 'https://cdn.shop.example:8443' },
    ],
    ['a data: logo: allowed by data: already', { logoUrl: LOGO_DATA }, { logoUrl: LOGO_DATA }],
    ['an http logo: dropped (mixed content, and the API refuses it)', { logoUrl: 'http://shop.example/logo.png' }, {}],
    ['a javascript: logo: dropped', { logoUrl: 'javascript:alert(1)' }, {}],
    ['a logo URL that would break out of the CSP: dropped', { logoUrl: "https://a.example/x; script-src 'unsafe-inline'" }, {}],
    ['a data: URL that is not an image: dropped', { logoUrl: 'data:text/html;base64,PHNjcmlwdD4=' }, {}],
    ['malformed colours: ignored', { accentColor: 'red', backgroundColor: '#fff' }, {}],
  ];
  for (const [name, theme, want] of cases) it(name, () => assert.deepEqual(pageTheme(theme), { ...defaults, ...want }));

  it('every colour pair it gives reads at 4.5:1 or better, whatever the seller picks', () => {
    const greys = Array.from({ length: 52 }, (_, i) => `#${(i * 5).toString(16).padStart(2, '0').repeat(3)}`);
    for (const hex of [...greys, '#4f46e5', '#fde047', '#0f766e', '#ff0000', '#00ff00', '#0000ff', '#5b21b6', '#f5f3ff']) {
      const t = pageTheme({ accentColor: hex, backgroundColor: hex });
      assert.ok(contrast(t.accent, t.onAccent) >= 4.5, `on accent ${hex}`);
      assert.ok(contrast(t.background, t.onBackground) >= 4.5, `on background ${hex}`);
      assert.ok(contrast(t.accentInk, '#ffffff') >= 4.5, `accent as text on white ${hex}`);
      assert.ok(contrast(t.accentInk, '#eef2ff') >= 4.5, `accent as text on the trial pill ${hex}`);
    }
  });
});

describe('themeCss', () => {
  it('custom properties the stylesheet reads', () => {
    assert.equal(
      themeCss(pageTheme({ accentColor: '#5b21b6', backgroundColor: '#f5f3ff', fontFamily: 'Inter' })),
      `:root{--accent:#5b21b6;--on-accent:#ffffff;--accent-ink:#5b21b6;--bg:#f5f3ff;--on-bg:#111827;--font:"Inter",${SYSTEM}}`,
    );
  });
});
