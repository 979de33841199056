import { createHash } from 'node:crypto';
import { describeOffering, type OfferingDisplay, type RatePlanDisplay, type TierRow, type UnitDisplay } from '@tollgate/pricing';
import type { StorefrontView } from './headless-config.js';
import type { StorefrontDisplay } from './storefront.js';

/**
 * The hosted pricing page (GET /pricing/:storefrontId), rendered on the server from the published
 * view with the same display library a client widget uses, so both read the same.
 *
 * Pure: the same input gives the same bytes (the route's ETag is a hash of them). No script at
 * all: the page reads fully without JavaScript, and its CSP allows nothing but the one inline
 * <style>, by hash. Every piece of catalog text is operator input and is escaped.
 */

export interface RenderedPage {
  html: string;
  /** The CSP source of the page's one inline <style>: "'sha256-…'". */
  styleHash: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/* Light only, AA contrast or better everywhere (muted text 7.6:1 on white, accent 8.6:1). */
const CSS = [
  ':root{color-scheme:light;--fg:#111827;--muted:#4b5563;--line:#d9dde3;--bg:#f5f6f8;--card:#fff;--accent:#1e40af;--soft:#eef2ff}',
  '*,*::before,*::after{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  'body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}',
  'main{max-width:72rem;margin:0 auto;padding:2.5rem 1rem 3rem}',
  'h1{margin:0 0 2rem;font-size:clamp(1.6rem,4vw,2.25rem);line-height:1.2;text-align:center;overflow-wrap:anywhere}',
  'h2,h3,p,ul{margin:0}',
  '.offerings{display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,19rem),1fr));align-items:start}',
  '.offering{min-width:0;background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1.5rem;overflow-wrap:anywhere}',
  '.offering h2{font-size:1.25rem;line-height:1.3}',
  '.price{margin-top:.5rem;font-size:1.875rem;font-weight:700;line-height:1.2;color:var(--accent);font-variant-numeric:tabular-nums}',
  '.per-month{color:var(--muted);font-size:.9375rem}',
  '.trial{display:inline-block;margin-top:.75rem;padding:.125rem .625rem;border-radius:999px;background:var(--soft);color:var(--accent);font-size:.875rem;font-weight:600}',
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
  '.empty{text-align:center;color:var(--muted)}',
  ':focus-visible{outline:3px solid var(--accent);outline-offset:2px}',
  '@media (max-width:30rem){main{padding:1.5rem .75rem 2rem}.offering{padding:1.125rem}h1{margin-bottom:1.25rem}}',
  '@media print{body{background:#fff}.offering{break-inside:avoid}}',
].join('');

function cspHash(css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
}

const STYLE_HASH = cspHash(CSS);

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
  const feeHeading = unit.pricingModel === 'STAIRCASE' ? 'Price' : 'Flat fee';
  const unitsHeading = unit.unitName.other.charAt(0).toUpperCase() + unit.unitName.other.slice(1);
  const head = [
    `<th scope="col">${escapeHtml(unitsHeading)}</th>`,
    perUnit ? '<th scope="col">Per unit</th>' : '',
    flat ? `<th scope="col">${feeHeading}</th>` : '',
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

function renderOffering(offering: OfferingDisplay, index: number): string {
  const id = `offering-${index + 1}`;
  const parts = [
    `<section class="offering" aria-labelledby="${id}">`,
    `<h2 id="${id}">${escapeHtml(offering.name)}</h2>`,
    `<p class="price">${escapeHtml(offering.price)}</p>`,
  ];
  if (offering.perMonth !== null && offering.perMonth !== offering.price) {
    parts.push(`<p class="per-month">${escapeHtml(`Equivalent to ${offering.perMonth}`)}</p>`);
  }
  if (offering.trial !== null) parts.push(`<p class="trial">${escapeHtml(offering.trial)}</p>`);
  parts.push(...offering.plans.map((plan, i) => renderPlan(plan, `${id}-p${i + 1}`)));
  parts.push('</section>');
  return parts.join('\n');
}

/**
 * The page for a storefront's published view: one card per offering, in the storefront's order
 * (the seller puts the entry plan first; re-sorting by price moved it last), each with its price,
 * per-month figure, trial, and every unit's wording and tiers.
 */
export function renderPricingPage(input: { storefrontName: string; view: StorefrontView; display?: StorefrontDisplay }): RenderedPage {
  const { storefrontName, view } = input;
  const offerings = view.offerings.map((o) => describeOffering(o, view.ratePlans));
  const content =
    offerings.length === 0
      ? '<p class="empty">No plans are published on this page yet.</p>'
      : `<div class="offerings">\n${offerings.map(renderOffering).join('\n')}\n</div>`;
  const body = ['<main>', `<h1>${escapeHtml(storefrontName)}</h1>`, content, '</main>'].join('\n');
  const title = /pricing/i.test(storefrontName) ? storefrontName : `${storefrontName} – Pricing`;
  return { html: document(title, CSS, body), styleHash: STYLE_HASH };
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
  return { html: document('Pricing page not found', NOT_FOUND_CSS, body), styleHash: NOT_FOUND_HASH };
}
