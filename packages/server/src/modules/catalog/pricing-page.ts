import { createHash } from 'node:crypto';
import { describeOffering, type OfferingDisplay, type RatePlanDisplay, type TierRow, type UnitDisplay } from '@tollgate/pricing';
import type { StorefrontView } from './headless-config.js';
import { pageTheme, themeCss } from './pricing-page-theme.js';
import { layoutOfferings, type PageLayout, type PageSlot, type SwitchPeriod } from './pricing-page-layout.js';
import type { OfferingDisplaySettings, StorefrontDisplay } from './storefront.js';

/**
 * The hosted pricing page (GET /pricing/:storefrontId), rendered on the server from the published
 * view with the same display library a client widget uses, so both read the same.
 *
 * Pure: the same input gives the same bytes (the route's ETag is a hash of them). No script at
 * all: the page reads fully without JavaScript (the period switch is radio inputs and CSS), and
 * its CSP allows nothing but the one inline <style>, by hash (computed per page: the seller's
 * theme is part of it), and images from the page itself, data: URLs and the logo's origin.
 * Every piece of catalog and storefront text is operator input and is escaped.
 */

export interface RenderedPage {
  html: string;
  /** The CSP source of the page's one inline <style>: "'sha256-…'". */
  styleHash: string;
  /** The https origin of the seller's logo, which img-src must allow too; null for none. */
  imageOrigin: string | null;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

const PERIOD_LABELS: Record<SwitchPeriod, string> = { MONTHLY: 'Monthly', QUARTERLY: 'Quarterly', ANNUAL: 'Annually' };
const periodId = (period: SwitchPeriod) => `period-${period.toLowerCase()}`;
const periodClass = (period: SwitchPeriod) => `for-${period.toLowerCase()}`;
const offeringId = (slot: PageSlot) => `offering-${slot.index + 1}`;

/*
 * Light only, AA contrast or better everywhere: muted text 7.6:1 on the white cards; the theme's
 * colours are chosen by contrast (pricing-page-theme.ts). Wide screens: a grid of equal-height cards.
 * Phones (up to 40rem): one column, compact cards, and a summary of every plan near the top.
 */
const CSS = [
  ':root{color-scheme:light;--fg:#111827;--muted:#4b5563;--line:#d9dde3;--card:#fff;--soft:#eef2ff}',
  '*,*::before,*::after{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  'body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 var(--font)}',
  'main{max-width:72rem;margin:0 auto;padding:2.5rem 1rem 3rem}',
  '.logo{display:block;height:3rem;width:auto;max-width:100%;margin:0 auto 1rem}',
  'h1{margin:0 0 2rem;font-size:clamp(1.6rem,4vw,2.25rem);line-height:1.2;text-align:center;overflow-wrap:anywhere;color:var(--on-bg)}',
  'h2,h3,p,ul{margin:0}',
  '.periods{margin:-1rem 0 2rem;padding:0;border:0;min-width:0;text-align:center}',
  '.periods legend{width:100%;padding:0;margin-bottom:.5rem;font-size:.875rem;font-weight:600;color:var(--on-bg);text-align:center}',
  '.segments{position:relative;display:inline-flex;flex-wrap:wrap;justify-content:center;gap:.25rem;padding:.25rem;border:1px solid var(--line);border-radius:999px;background:var(--card)}',
  '.segments input{position:absolute;width:1px;height:1px;margin:0;opacity:0}',
  '.segments label{padding:.375rem 1rem;border-radius:999px;color:var(--fg);font-weight:600;cursor:pointer}',
  '.segments label:hover{background:var(--soft)}',
  '.segments input:checked+label{background:var(--accent);color:var(--on-accent)}',
  '.segments input:focus-visible+label{outline:3px solid var(--accent-ink);outline-offset:2px}',
  '.summary{display:none;margin:0 0 1.25rem;padding:0 .875rem;border:1px solid var(--line);border-radius:.75rem;background:var(--card)}',
  '.summary ul{list-style:none;padding:0}',
  '.summary li+li{border-top:1px solid var(--line)}',
  '.summary a{display:flex;justify-content:space-between;gap:1rem;padding:.5rem 0;color:var(--fg);font-weight:600;text-decoration:none}',
  '.summary a:hover .summary-name{text-decoration:underline}',
  '.summary-price{color:var(--accent-ink);font-variant-numeric:tabular-nums;white-space:nowrap}',
  '.offerings{display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,19rem),1fr));align-items:stretch}',
  '.offering{display:flex;flex-direction:column;min-width:0;background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1.5rem;overflow-wrap:anywhere;scroll-margin-top:1rem}',
  '.offering.highlighted{border:2px solid var(--accent);padding:calc(1.5rem - 1px)}',
  '.badge{align-self:flex-start;margin-bottom:.5rem;padding:.125rem .625rem;border-radius:999px;background:var(--accent);color:var(--on-accent);font-size:.8125rem;font-weight:700}',
  '.offering h2{font-size:1.25rem;line-height:1.3}',
  '.price{margin-top:.5rem;font-size:1.875rem;font-weight:700;line-height:1.2;color:var(--accent-ink);font-variant-numeric:tabular-nums}',
  '.per-month{color:var(--muted);font-size:.9375rem}',
  '.savings{font-size:.9375rem;font-weight:600}',
  '.billing{margin:.5rem 0 0;color:var(--muted);font-size:.875rem}',
  '.trial{align-self:flex-start;margin-top:.75rem;padding:.125rem .625rem;border-radius:999px;background:var(--soft);color:var(--accent-ink);font-size:.875rem;font-weight:600}',
  '.cta{display:block;margin-top:1rem;padding:.5rem 1rem;border:2px solid var(--accent-ink);border-radius:.5rem;background:var(--card);color:var(--accent-ink);font-weight:600;text-align:center;text-decoration:none}',
  '.highlighted .cta{border-color:var(--accent);background:var(--accent);color:var(--on-accent)}',
  '.cta:hover{text-decoration:underline}',
  '.plan{margin-top:1.25rem;padding-top:1rem;border-top:1px solid var(--line)}',
  '.plan h3{font-size:.8125rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:var(--muted)}',
  '.plan-headline{margin-top:.5rem;font-weight:600}',
  '.units{list-style:none;padding:0}',
  '.unit{margin-top:.875rem}',
  '.metric{display:block;color:var(--muted);font-size:.875rem}',
  '.headline{display:block;font-weight:600;font-variant-numeric:tabular-nums}',
  '.minimum,.note,.weights-label{color:var(--muted);font-size:.875rem}',
  'table{width:100%;margin-top:.5rem;border-collapse:collapse;font-size:.875rem;font-variant-numeric:tabular-nums}',
  'caption{text-align:left;color:var(--muted);padding-bottom:.25rem}',
  'th,td{padding:.3rem .5rem .3rem 0;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}',
  'th{font-weight:600}',
  'th+th,td+td{text-align:right;padding-right:0;padding-left:.5rem;white-space:nowrap}',
  '.weights-label{margin-top:.5rem}',
  '.weights{padding-left:1.25rem;font-size:.875rem}',
  '.empty{text-align:center;color:var(--on-bg)}',
  ':focus-visible{outline:3px solid var(--accent-ink);outline-offset:2px}',
  '@media (max-width:40rem){main{padding:1.25rem .75rem 2rem}.logo{height:2.25rem;margin-bottom:.5rem}h1{margin-bottom:1rem}.periods{margin:0 0 1rem}.summary{display:block}.offerings{gap:1rem}.offering{padding:1.125rem}.offering.highlighted{padding:calc(1.125rem - 1px)}.price{font-size:1.5rem}.plan{margin-top:1rem;padding-top:.75rem}}',
  '@media print{body{background:#fff}.offering{break-inside:avoid}.summary,.periods{display:none}}',
].join('');

/** The switch's rules: each view hides the cards (and summary lines) of every other period. */
function periodCss(periods: readonly SwitchPeriod[]): string {
  return periods
    .flatMap((shown) => periods.filter((p) => p !== shown).map((hidden) => `main:has(#${periodId(shown)}:checked) .${periodClass(hidden)}{display:none}`))
    .join('');
}

function cspHash(css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
}

function document(title: string, css: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    // No favicon request: the CSP allows data: images.
    '<link rel="icon" href="data:,">',
    `<style>${css}</style>`,
    '</head>',
    '<body>',
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function renderTierTable(unit: UnitDisplay, label: string, tiers: TierRow[]): string {
  const perUnit = tiers.some((row) => row.unitPrice !== null);
  const flat = tiers.some((row) => row.flatFee !== null);
  const headings = unit.tierHeadings ?? { range: 'Units', unitPrice: 'Per unit', flatFee: 'Flat fee' };
  const head = [
    `<th scope="col">${escapeHtml(headings.range)}</th>`,
    perUnit ? `<th scope="col">${escapeHtml(headings.unitPrice)}</th>` : '',
    flat ? `<th scope="col">${escapeHtml(headings.flatFee)}</th>` : '',
  ].join('');
  const rows = tiers
    .map((row) =>
      [
        '<tr>',
        `<td>${escapeHtml(row.range)}</td>`,
        perUnit ? `<td>${row.unitPrice === null ? '—' : escapeHtml(row.unitPrice)}</td>` : '',
        flat ? `<td>${row.flatFee === null ? '—' : escapeHtml(row.flatFee)}</td>` : '',
        '</tr>',
      ].join(''),
    )
    .join('\n');
  return ['<table>', `<caption>${escapeHtml(label)}: price tiers</caption>`, `<thead><tr>${head}</tr></thead>`, `<tbody>\n${rows}\n</tbody>`, '</table>'].join(
    '\n',
  );
}

function renderUnit(unit: UnitDisplay, id: string): string {
  const label = unit.label;
  const parts = ['<li class="unit">', `<span class="metric">${escapeHtml(label)}</span>`, `<span class="headline">${escapeHtml(unit.headline)}</span>`];
  if (unit.minimum !== null) parts.push(`<p class="minimum">${escapeHtml(unit.minimum)}</p>`);
  if (unit.tiers !== null && unit.tiers.length > 0) parts.push(renderTierTable(unit, label, unit.tiers));
  if (unit.weights !== null && unit.weights.length > 0) {
    parts.push(
      `<p class="weights-label" id="${id}-weights">Billed by outcome:</p>`,
      `<ul class="weights" aria-labelledby="${id}-weights">`,
      ...unit.weights.map((w) => `<li>${escapeHtml(w.statusText)}: ${escapeHtml(w.label)}</li>`),
      '</ul>',
    );
  }
  if (unit.note !== null) parts.push(`<p class="note">${escapeHtml(unit.note)}</p>`);
  parts.push('</li>');
  return parts.join('\n');
}

function renderPlan(plan: RatePlanDisplay, id: string): string {
  const parts = ['<div class="plan">', `<h3>${escapeHtml(plan.name)}</h3>`];
  if (plan.headline !== null) parts.push(`<p class="plan-headline">${escapeHtml(plan.headline)}</p>`);
  if (plan.units.length > 0) {
    parts.push('<ul class="units">', ...plan.units.map((u, i) => renderUnit(u, `${id}-u${i + 1}`)), '</ul>');
  }
  parts.push('</div>');
  return parts.join('\n');
}

/** An http(s) URL as the API accepts it; anything else (javascript:, a relative path) is no link. */
function isLinkUrl(url: string): boolean {
  if (!/^https?:\/\//i.test(url) || url.length > 2048) return false;
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

function renderCallToAction(settings: OfferingDisplaySettings | undefined, id: string): string | null {
  const cta = settings?.callToAction;
  if (!cta || cta.label.trim() === '' || !isLinkUrl(cta.url)) return null;
  // _top: the page may be in an iframe on the seller's site, and sign-up belongs in the whole window.
  return `<a class="cta" href="${escapeHtml(cta.url)}" target="_top" rel="noopener" aria-describedby="${id}">${escapeHtml(cta.label)}</a>`;
}

function renderOffering(offering: OfferingDisplay, slot: PageSlot, settings: OfferingDisplaySettings | undefined): string {
  const id = offeringId(slot);
  const highlighted = settings?.highlighted === true;
  const classes = ['offering', highlighted ? 'highlighted' : '', slot.period === null ? '' : periodClass(slot.period)].filter((c) => c !== '').join(' ');
  const parts = [`<section class="${classes}" id="${id}-card" aria-labelledby="${id}">`];
  // In words, not only the border's colour.
  if (highlighted) parts.push('<p class="badge">Most popular</p>');
  parts.push(`<h2 id="${id}">${escapeHtml(offering.name)}</h2>`, `<p class="price">${escapeHtml(offering.price)}</p>`);
  if (offering.perMonth !== null && offering.perMonth !== offering.price) {
    parts.push(`<p class="per-month">${escapeHtml(`Equivalent to ${offering.perMonth}`)}</p>`);
  }
  if (slot.savingsPercent !== null) parts.push(`<p class="savings">Save ${slot.savingsPercent}% against monthly</p>`);
  if (offering.trial !== null) parts.push(`<p class="trial">${escapeHtml(offering.trial)}</p>`);
  if (offering.billing !== null) parts.push(`<p class="billing">${escapeHtml(offering.billing)}</p>`);
  // Right under the price, so it is on the first screen whatever the plans below say.
  const cta = renderCallToAction(settings, id);
  if (cta !== null) parts.push(cta);
  parts.push(...offering.plans.map((plan, i) => renderPlan(plan, `${id}-p${i + 1}`)));
  parts.push('</section>');
  return parts.join('\n');
}

/** The period switch: radio inputs, so it works by click and keyboard with no script; CSS does the rest. */
function renderSwitch(layout: PageLayout): string {
  if (layout.periods.length === 0) return '';
  const options = layout.periods.map((p) =>
    [
      `<input type="radio" name="period" id="${periodId(p)}" value="${p.toLowerCase()}"${p === layout.defaultPeriod ? ' checked' : ''}>`,
      `<label for="${periodId(p)}">${PERIOD_LABELS[p]}</label>`,
    ].join(''),
  );
  return ['<fieldset class="periods">', '<legend>Billing period</legend>', '<div class="segments">', ...options, '</div>', '</fieldset>'].join('\n');
}

/** Phones: every plan's name and price near the top, each a link to its card, filtered like the cards. */
function renderSummary(cards: Array<{ slot: PageSlot; offering: OfferingDisplay }>): string {
  const items = cards.map(({ slot, offering }) => {
    const cls = slot.period === null ? '' : ` class="${periodClass(slot.period)}"`;
    return `<li${cls}><a href="#${offeringId(slot)}-card"><span class="summary-name">${escapeHtml(offering.name)}</span> <span class="summary-price">${escapeHtml(offering.price)}</span></a></li>`;
  });
  return ['<nav class="summary" aria-label="Plans">', '<ul>', ...items, '</ul>', '</nav>'].join('\n');
}

/**
 * The page for a storefront's published view: one card per offering, in the storefront's order
 * (the seller puts the entry plan first; re-sorting by price moved it last), each with its price,
 * per-month figure, trial, the seller's call to action, and every unit's wording and tiers. A plan
 * offered for several periods gets a switch (pricing-page-layout.ts); the seller's theme colours
 * it (pricing-page-theme.ts).
 */
export function renderPricingPage(input: { storefrontName: string; view: StorefrontView; display?: StorefrontDisplay }): RenderedPage {
  const { storefrontName, view, display } = input;
  const theme = pageTheme(display?.theme);
  const settings = new Map((display?.offerings ?? []).map((o) => [o.offeringId, o]));
  const layout = layoutOfferings(view.offerings);
  const cards = layout.slots.map((slot) => ({ slot, offering: describeOffering(slot.offering, view.ratePlans) }));
  const content =
    cards.length === 0
      ? ['<p class="empty">No plans are published on this page yet.</p>']
      : [
          renderSwitch(layout),
          renderSummary(cards),
          '<div class="offerings">',
          ...cards.map(({ slot, offering }) => renderOffering(offering, slot, settings.get(slot.offering.id))),
          '</div>',
        ];
  const logo = theme.logoUrl === null ? '' : `<img class="logo" src="${escapeHtml(theme.logoUrl)}" alt="${escapeHtml(storefrontName)}">`;
  const body = ['<main>', logo, `<h1>${escapeHtml(storefrontName)}</h1>`, ...content, '</main>'].filter((line) => line !== '').join('\n');
  const title = /pricing/i.test(storefrontName) ? storefrontName : `${storefrontName} – Pricing`;
  const css = themeCss(theme) + CSS + periodCss(layout.periods);
  return { html: document(title, css, body), styleHash: cspHash(css), imageOrigin: theme.imageOrigin };
}

const NOT_FOUND_CSS = [
  ':root{color-scheme:light}',
  'body{margin:0;background:#f5f6f8;color:#111827;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}',
  'main{max-width:36rem;margin:0 auto;padding:3rem 1rem;text-align:center}',
  'h1{font-size:1.5rem;margin:0 0 .5rem}',
  'p{margin:0;color:#4b5563}',
].join('');
const NOT_FOUND_HASH = cspHash(NOT_FOUND_CSS);

/**
 * The 404 page. One wording for an unknown id and an unpublished storefront, so the page does not
 * tell strangers which storefront ids exist.
 */
export function renderPricingPageNotFound(): RenderedPage {
  const body = ['<main>', '<h1>Pricing page not found</h1>', '<p>There is no published pricing page at this address.</p>', '</main>'].join('\n');
  return { html: document('Pricing page not found', NOT_FOUND_CSS, body), styleHash: NOT_FOUND_HASH, imageOrigin: null };
}
