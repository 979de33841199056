import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { unitPricingWith, type Offering, type RatePlan, type Tier, type UnitPricing } from '@tollgate/pricing';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';
import { createOffering } from './create-offering.js';
import { createStorefront } from './create-storefront.js';
import type { StorefrontView } from './headless-config.js';
import { renderPricingPage, renderPricingPageNotFound } from './pricing-page.js';
import { pricingPageCsp } from './pricing-page.routes.js';
import { publishStorefront } from './publish-storefront.js';
import type { OfferingDisplaySettings, StorefrontDisplay } from './storefront.js';
import { updateStorefront } from './update-storefront.js';

/* ----------------------------------------------------------------------------------------------
 * Fixtures
 * -------------------------------------------------------------------------------------------- */

function unit(fields: Partial<UnitPricing> & Pick<UnitPricing, 'pricingModel'>): UnitPricing {
  return unitPricingWith({ metricId: 'met_1', metricName: 'api_calls', ...fields });
}

const tier = (tierStart: number, tierEnd: number | null, unitPrice: string | null, flatFee: string | null = null): Tier => ({
  tierStart,
  tierEnd,
  unitPrice,
  flatFee,
});

function plan(id: string, metrics: UnitPricing[], fields: Partial<RatePlan> = {}): RatePlan {
  return { id, name: `Plan ${id}`, currency: 'USD', billingPeriod: 'MONTHLY', metrics, ...fields };
}

function offering(id: string, fields: Partial<Offering> = {}): Offering {
  return {
    id,
    name: `Offering ${id}`,
    billingMode: 'POSTPAID',
    currency: 'USD',
    entryPrice: null,
    billingPeriod: 'MONTHLY',
    trialDays: 0,
    ratePlanIds: [],
    ...fields,
  };
}

const render = (view: StorefrontView, storefrontName = 'Acme pricing') => renderPricingPage({ storefrontName, view }).html;

/** The text of each element with the class, tags stripped (the markup here is flat enough). */
function texts(html: string, className: string): string[] {
  const re = new RegExp(`<(\\w+) class="${className}"[^>]*>([\\s\\S]*?)</\\1>`, 'g');
  return [...html.matchAll(re)].map((m) => (m[2] as string).replace(/<[^>]+>/g, ''));
}
const headings = (html: string, level: number) => [...html.matchAll(new RegExp(`<h${level}[^>]*>([\\s\\S]*?)</h${level}>`, 'g'))].map((m) => m[1]);

/* ----------------------------------------------------------------------------------------------
 * renderPricingPage
 * -------------------------------------------------------------------------------------------- */

describe('renderPricingPage', () => {
  const cases: Array<{ name: string; view: StorefrontView; includes: string[]; excludes?: string[] }> = [
    {
      name: 'no entryPrice and a plan without units: "Contact sales", for the offering and the plan',
      view: { offerings: [offering('o1', { name: 'Enterprise', ratePlanIds: ['p1'] })], ratePlans: [plan('p1', [], { name: 'Custom' })] },
      includes: ['<h2 id="offering-1">Enterprise</h2>', '<p class="price">Contact sales</p>', '<h3>Custom</h3>', '<p class="plan-headline">Contact sales</p>'],
      excludes: ['<ul class="units">'],
    },
    {
      name: 'no entryPrice and no plan found: "Contact sales"',
      view: { offerings: [offering('o1', { ratePlanIds: ['p_missing'] })], ratePlans: [] },
      includes: ['<p class="price">Contact sales</p>'],
      excludes: ['<div class="plan">'],
    },
    {
      name: 'no entryPrice and metered units: "Usage-based" and each unit headline',
      view: {
        offerings: [offering('o1', { ratePlanIds: ['p1'] })],
        ratePlans: [
          plan('p1', [
            unit({ pricingModel: 'PER_UNIT', rate: '0.002', includedFree: 1000 }),
            unit({ metricName: 'payment_volume', pricingModel: 'PERCENTAGE', rate: '2.9' }),
          ]),
        ],
      },
      includes: [
        '<p class="price">Usage-based</p>',
        '<span class="metric">Api calls</span>\n<span class="headline">$0.0020 / unit after 1,000 free</span>',
        '<span class="metric">Payment volume</span>\n<span class="headline">2.9% of transaction value</span>',
      ],
    },
    {
      name: 'entryPrice 0: "Free", and no per-month line',
      view: { offerings: [offering('o1', { entryPrice: '0' })], ratePlans: [] },
      includes: ['<p class="price">Free</p>'],
      excludes: ['class="per-month"'],
    },
    {
      name: 'an annual price shows its per-month figure; a monthly one does not repeat it',
      view: { offerings: [offering('o1', { entryPrice: '120', billingPeriod: 'ANNUAL' }), offering('o2', { entryPrice: '49' })], ratePlans: [] },
      includes: ['<p class="price">$120.00/yr</p>\n<p class="per-month">Equivalent to $10.00/mo</p>', '<p class="price">$49.00/mo</p>\n</section>'],
    },
    {
      name: 'ONE_TIME: "one-time", no per-month line',
      view: { offerings: [offering('o1', { entryPrice: '49', billingPeriod: 'ONE_TIME' })], ratePlans: [] },
      includes: ['<p class="price">$49.00 one-time</p>'],
      excludes: ['class="per-month"'],
    },
    {
      name: 'trial days: the trial text',
      view: { offerings: [offering('o1', { entryPrice: '199', trialDays: 14 })], ratePlans: [] },
      includes: ['<p class="trial">14-day free trial</p>'],
    },
    {
      name: 'PREPAID: says that usage draws from the credit balance; POSTPAID says nothing of it',
      view: { offerings: [offering('o1', { entryPrice: '20', billingMode: 'PREPAID' }), offering('o2', { entryPrice: '49' })], ratePlans: [] },
      includes: ['<p class="price">$20.00/mo</p>\n<p class="billing">Prepaid: usage draws from your credit balance</p>'],
    },
    {
      name: 'GRADUATED: a real table with caption and column headers; no flat-fee column without fees',
      view: {
        offerings: [offering('o1', { ratePlanIds: ['p1'] })],
        ratePlans: [plan('p1', [unit({ metricName: 'tokens', pricingModel: 'GRADUATED', tiers: [tier(0, 1000, '0.002'), tier(1000, null, '0.001')] })])],
      },
      includes: [
        '<span class="headline">From $0.0010 / unit</span>',
        '<table>\n<caption>Tokens: price tiers</caption>\n<thead><tr><th scope="col">Units</th><th scope="col">Per unit</th></tr></thead>',
        '<tr><td>First 1,000</td><td>$0.0020</td></tr>\n<tr><td>Over 1,000</td><td>$0.0010</td></tr>',
        '</table>\n<p class="note">Each unit is billed at the rate of the tier it falls in.</p>',
      ],
      excludes: ['Flat fee'],
    },
    {
      name: 'VOLUME_TIERED with a flat fee on one band: a flat-fee column, a dash where a band has none',
      view: {
        offerings: [offering('o1', { ratePlanIds: ['p1'] })],
        ratePlans: [plan('p1', [unit({ pricingModel: 'VOLUME_TIERED', tiers: [tier(0, 100, '0.01', '5'), tier(100, null, '0.005')] })])],
      },
      includes: [
        '<thead><tr><th scope="col">Units</th><th scope="col">Per unit</th><th scope="col">Flat fee</th></tr></thead>',
        '<tr><td>Up to 100</td><td>$0.0100</td><td>$5.00</td></tr>',
        '<tr><td>Over 100</td><td>$0.0050</td><td>—</td></tr>',
        '</table>\n<p class="note">All units are billed at the rate of the tier the period&#39;s total reaches.</p>',
      ],
    },
    {
      name: 'STAIRCASE: a price column, no per-unit column',
      view: {
        offerings: [offering('o1', { ratePlanIds: ['p1'] })],
        ratePlans: [plan('p1', [unit({ metricName: 'seats', pricingModel: 'STAIRCASE', tiers: [tier(0, 5, null, '10'), tier(5, null, null, '40')] })])],
      },
      includes: [
        '<span class="headline">From $10.00/mo</span>',
        '<caption>Seats: price tiers</caption>\n<thead><tr><th scope="col">Units</th><th scope="col">Price</th></tr></thead>',
        '<tr><td>Over 5</td><td>$40.00</td></tr>',
      ],
      excludes: ['Per unit'],
    },
    {
      name: 'OUTCOME_BASED: the weights as a list, the minimum and the note',
      view: {
        offerings: [offering('o1', { ratePlanIds: ['p1'] })],
        ratePlans: [
          plan('p1', [
            unit({
              metricName: 'agent_runs',
              pricingModel: 'OUTCOME_BASED',
              rate: '0.05',
              minFee: '10',
              outcomeWeights: { ERROR: 0, SUCCESS: 1, PARTIAL: 0.5, TIMEOUT: 0.25 },
            }),
          ]),
        ],
      },
      includes: [
        '<span class="headline">$0.0500 / unit</span>',
        '<p class="minimum">Minimum $10.00/mo</p>',
        '<p class="weights-label" id="offering-1-p1-u1-weights">Billed by outcome:</p>\n<ul class="weights" aria-labelledby="offering-1-p1-u1-weights">\n<li>Success: full price</li>\n<li>Partial: half price</li>\n<li>Error: free</li>\n<li>Timeout: 25% of price</li>\n</ul>',
        '<p class="note">Other statuses bill at full price</p>',
      ],
      excludes: ['<table>'],
    },
    {
      name: 'no offerings: says so',
      view: { offerings: [], ratePlans: [] },
      includes: ['<p class="empty">No plans are published on this page yet.</p>'],
      excludes: ['<section'],
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const html = render(c.view);
      for (const s of c.includes) assert.ok(html.includes(s), `expected:\n${s}\n--- in ---\n${html}`);
      for (const s of c.excludes ?? []) assert.ok(!html.includes(s), `not expected: ${s}`);
      assert.doesNotMatch(html, /<script/i);
    });
  }

  it('escapes every piece of catalog text: names, plan names, metric names and statuses', () => {
    const evil = `<script>alert("x")</script> & 'Co'`;
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;';
    const html = render(
      {
        offerings: [offering('o1', { name: evil, entryPrice: '10', ratePlanIds: ['p1'] })],
        ratePlans: [
          plan('p1', [unit({ metricName: '<img src=x onerror=alert(1)>', pricingModel: 'OUTCOME_BASED', rate: '1', outcomeWeights: { '<b>"LOST"</b>': 0 } })], {
            name: evil,
          }),
        ],
      },
      evil,
    );
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<img/);
    assert.doesNotMatch(html, /<b>/);
    assert.ok(html.includes(`<title>${escaped} – Pricing</title>`), 'title');
    assert.ok(html.includes(`<h1>${escaped}</h1>`), 'h1');
    assert.ok(html.includes(`<h2 id="offering-1">${escaped}</h2>`), 'h2');
    assert.ok(html.includes(`<h3>${escaped}</h3>`), 'plan name');
    assert.ok(html.includes('<span class="metric">&lt;img src=x onerror=alert(1)&gt;</span>'), 'metric name');
    assert.ok(html.includes('<li>&lt;b&gt;&quot;lost&quot;&lt;/b&gt;: free</li>'), 'status');
  });

  it("keeps the storefront's order: the seller's entry plan stays first, whatever the prices", () => {
    const html = render({
      offerings: [
        offering('a', { name: 'Usage' }),
        offering('b', { name: 'Big', entryPrice: '1200', billingPeriod: 'ANNUAL' }),
        offering('c', { name: 'Small', entryPrice: '49' }),
        offering('d', { name: 'Once', entryPrice: '5', billingPeriod: 'ONE_TIME' }),
      ],
      ratePlans: [],
    });
    assert.deepEqual(headings(html, 2), ['Usage', 'Big', 'Small', 'Once']);
  });

  it('is a whole, accessible document: doctype, lang, viewport, title, one h1, a main, labelled sections', () => {
    const html = render({ offerings: [offering('o1', { entryPrice: '9' }), offering('o2', { entryPrice: '19' })], ratePlans: [] });
    assert.ok(html.startsWith('<!doctype html>\n<html lang="en">'));
    assert.ok(html.includes('<meta name="viewport" content="width=device-width, initial-scale=1">'));
    assert.ok(html.includes('<meta charset="utf-8">'));
    assert.ok(html.includes('<title>Acme pricing</title>'));
    assert.equal(headings(html, 1).length, 1);
    assert.equal(html.match(/<main>/g)?.length, 1);
    const sections = [...html.matchAll(/<section class="offering" id="([^"]+)-card" aria-labelledby="([^"]+)">\n<h2 id="([^"]+)">/g)];
    assert.equal(sections.length, 2);
    for (const m of sections) assert.deepEqual([m[1], m[2]], [m[3], m[3]]);
    assert.deepEqual(texts(html, 'price'), ['$9.00/mo', '$19.00/mo']);
  });

  it('has one inline <style>, whose CSP hash is styleHash, and nothing that would load from elsewhere', () => {
    const { html, styleHash } = renderPricingPage({ storefrontName: 'Acme', view: { offerings: [offering('o1', { entryPrice: '9' })], ratePlans: [] } });
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)];
    assert.equal(styles.length, 1);
    const css = styles[0]?.[1] as string;
    assert.equal(styleHash, `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
    assert.doesNotMatch(html, /<script|@import|url\(|style="|https?:\/\//i);
    assert.doesNotMatch(css, /@font-face/);
    assert.match(css, /:focus-visible\{outline/);
    assert.equal(html.includes('<title>Acme – Pricing</title>'), true);
  });

  it('is deterministic: the same view gives the same bytes (the ETag depends on it)', () => {
    const view: StorefrontView = {
      offerings: [offering('o1', { entryPrice: '9', ratePlanIds: ['p1'] })],
      ratePlans: [plan('p1', [unit({ pricingModel: 'PER_UNIT', rate: '1' })])],
    };
    assert.equal(render(view), render(structuredClone(view)));
  });

  it('the 404 page is HTML with its own style hash and no script', () => {
    const { html, styleHash } = renderPricingPageNotFound();
    assert.ok(html.startsWith('<!doctype html>\n<html lang="en">'));
    assert.match(html, /<h1>Pricing page not found<\/h1>/);
    assert.doesNotMatch(html, /<script/i);
    const css = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] as string;
    assert.equal(styleHash, `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  });
});

/* ----------------------------------------------------------------------------------------------
 * renderPricingPage: the seller's display settings (calls to action, highlight, theme) and the
 * period switch
 * -------------------------------------------------------------------------------------------- */

const settings = (offeringId: string, fields: Partial<OfferingDisplaySettings> = {}): OfferingDisplaySettings => ({
  offeringId,
  highlighted: false,
  callToAction: null,
  ...fields,
});
const renderWith = (view: StorefrontView, display: StorefrontDisplay, storefrontName = 'Acme pricing') => renderPricingPage({ storefrontName, view, display });

/** The markup of one card, by its offering's storefront position (1-based). */
function card(html: string, n: number): string {
  const m = html.match(new RegExp(`<section class="[^"]*" id="offering-${n}-card"[\\s\\S]*?</section>`));
  assert.ok(m, `card ${n}`);
  return m[0];
}

describe('renderPricingPage: call to action and highlight', () => {
  const view: StorefrontView = {
    offerings: [offering('o1', { name: 'Basic', entryPrice: '9', trialDays: 7, ratePlanIds: ['p1'] }), offering('o2', { name: 'Pro', entryPrice: '49' })],
    ratePlans: [plan('p1', [unit({ pricingModel: 'PER_UNIT', rate: '0.002' })])],
  };

  it('a call to action is a real link, styled as a button, under the price and trial, leaving the iframe', () => {
    const { html } = renderWith(view, {
      offerings: [settings('o1', { callToAction: { label: 'Start now', url: 'https://shop.example/signup?plan=basic&ref=page' } })],
      theme: {},
    });
    assert.ok(
      card(html, 1).includes(
        '<p class="trial">7-day free trial</p>\n<a class="cta" href="https://shop.example/signup?plan=basic&amp;ref=page" target="_top" rel="noopener" aria-describedby="offering-1">Start now</a>\n<div class="plan">',
      ),
      card(html, 1),
    );
    assert.doesNotMatch(card(html, 2), /class="cta"/, 'no setting: no button');
    assert.doesNotMatch(html, /<form|<button|<script/i, 'a link needs no form, and no script');
  });

  it('escapes a hostile label and URL; a URL that is not http(s) is no link at all', () => {
    const { html } = renderWith(view, {
      offerings: [
        settings('o1', { callToAction: { label: `<img src=x onerror=alert(1)> "Go" & 'now'`, url: `https://x.example/"><script>alert(1)</script>` } }),
        settings('o2', { callToAction: { label: 'Click', url: 'javascript:alert(1)' } }),
      ],
      theme: {},
    });
    assert.ok(
      html.includes(
        `<a class="cta" href="https://x.example/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" target="_top" rel="noopener" aria-describedby="offering-1">&lt;img src=x onerror=alert(1)&gt; &quot;Go&quot; &amp; &#39;now&#39;</a>`,
      ),
    );
    assert.doesNotMatch(html, /<script|<img|javascript:/i);
    assert.doesNotMatch(card(html, 2), /class="cta"/);
  });

  it('a highlighted offering says "Most popular" in text, above its name, and has the accent border', () => {
    const { html } = renderWith(view, { offerings: [settings('o2', { highlighted: true })], theme: {} });
    assert.ok(
      card(html, 2).startsWith(
        '<section class="offering highlighted" id="offering-2-card" aria-labelledby="offering-2">\n<p class="badge">Most popular</p>\n<h2 id="offering-2">Pro</h2>',
      ),
    );
    assert.doesNotMatch(card(html, 1), /badge|highlighted/);
    assert.match(html, /\.offering\.highlighted\{border:2px solid var\(--accent\)/);
    assert.deepEqual(texts(html, 'badge'), ['Most popular']);
  });

  it('keeps the storefront order whatever the settings’ order, and ignores settings for offerings not shown', () => {
    const { html } = renderWith(view, {
      offerings: [settings('o2', { highlighted: true }), settings('gone', { highlighted: true }), settings('o1')],
      theme: {},
    });
    assert.deepEqual(headings(html, 2), ['Basic', 'Pro']);
    assert.equal(texts(html, 'badge').length, 1);
  });
});

describe('renderPricingPage: the period switch', () => {
  const view: StorefrontView = {
    offerings: [
      offering('free', { name: 'Free', entryPrice: '0' }),
      offering('pro-m', { name: 'Pro', entryPrice: '49' }),
      offering('ent', { name: 'Enterprise' }),
      offering('pro-a', { name: 'pro', entryPrice: '490', billingPeriod: 'ANNUAL' }),
    ],
    ratePlans: [],
  };
  const { html } = renderWith(view, { offerings: [], theme: {} });
  const css = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] as string;

  it('radio inputs in a fieldset with a legend, Monthly checked', () => {
    assert.ok(
      html.includes(
        [
          '<fieldset class="periods">',
          '<legend>Billing period</legend>',
          '<div class="segments">',
          '<input type="radio" name="period" id="period-monthly" value="monthly" checked><label for="period-monthly">Monthly</label>',
          '<input type="radio" name="period" id="period-annual" value="annual"><label for="period-annual">Annually</label>',
          '</div>',
          '</fieldset>',
        ].join('\n'),
      ),
    );
  });

  it('the annual card sits at the monthly one’s slot, each in its own view; the others in every view', () => {
    assert.deepEqual(headings(html, 2), ['Free', 'Pro', 'pro', 'Enterprise']);
    assert.match(card(html, 1), /^<section class="offering" id/);
    assert.match(card(html, 2), /^<section class="offering for-monthly" id/);
    assert.match(card(html, 4), /^<section class="offering for-annual" id/);
    assert.match(card(html, 3), /^<section class="offering" id/);
  });

  it('CSS hides the other period’s cards (and summary lines), no script needed', () => {
    assert.ok(css.includes('main:has(#period-monthly:checked) .for-annual{display:none}'));
    assert.ok(css.includes('main:has(#period-annual:checked) .for-monthly{display:none}'));
    assert.doesNotMatch(html, /<script/i);
    assert.match(css, /\.segments input:focus-visible\+label\{outline:3px solid/, 'a visible focus ring on the chosen label');
  });

  it('the annual price per month, and what it saves against monthly, rounded down', () => {
    assert.ok(
      card(html, 4).includes(
        '<p class="price">$490.00/yr</p>\n<p class="per-month">Equivalent to $40.83/mo</p>\n<p class="savings">Save 16% against monthly</p>',
      ),
      card(html, 4),
    );
    assert.equal(texts(html, 'savings').length, 1);
  });

  it('a summary of every plan for phones: name and price, a link to the card, filtered by period like the cards', () => {
    assert.ok(
      html.includes(
        [
          '<nav class="summary" aria-label="Plans">',
          '<ul>',
          '<li><a href="#offering-1-card"><span class="summary-name">Free</span> <span class="summary-price">Free</span></a></li>',
          '<li class="for-monthly"><a href="#offering-2-card"><span class="summary-name">Pro</span> <span class="summary-price">$49.00/mo</span></a></li>',
          '<li class="for-annual"><a href="#offering-4-card"><span class="summary-name">pro</span> <span class="summary-price">$490.00/yr</span></a></li>',
          '<li><a href="#offering-3-card"><span class="summary-name">Enterprise</span> <span class="summary-price">Contact sales</span></a></li>',
          '</ul>',
          '</nav>',
        ].join('\n'),
      ),
    );
    assert.match(css, /\.summary\{display:none;/);
    assert.match(css, /@media \(max-width:40rem\)\{[^@]*\.summary\{display:block\}/);
  });

  it('no groups, no switch and no period rules', () => {
    const plain = renderWith({ offerings: [offering('a', { name: 'A', entryPrice: '1' })], ratePlans: [] }, { offerings: [], theme: {} }).html;
    assert.doesNotMatch(plain, /<fieldset|type="radio"|:has\(/);
  });
});

describe('renderPricingPage: the seller’s theme, within the CSP', () => {
  const view: StorefrontView = { offerings: [offering('o1', { entryPrice: '9' })], ratePlans: [] };
  const styleOf = (html: string) => html.match(/<style>([\s\S]*?)<\/style>/)?.[1] as string;

  it('colours and font as custom properties, and the style hash of that very CSS', () => {
    const page = renderWith(view, { offerings: [], theme: { accentColor: '#5b21b6', backgroundColor: '#f5f3ff', fontFamily: 'Inter' } });
    const css = styleOf(page.html);
    assert.ok(css.startsWith(':root{--accent:#5b21b6;--on-accent:#ffffff;--accent-ink:#5b21b6;--bg:#f5f3ff;--on-bg:#111827;--font:"Inter",system-ui,'));
    assert.equal(page.styleHash, `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
    const plain = renderWith(view, { offerings: [], theme: {} });
    assert.notEqual(plain.styleHash, page.styleHash, 'the hash follows the theme');
    assert.doesNotMatch(css, /@font-face|@import|url\(/, 'no web fonts');
  });

  it('a logo above the title, named by the storefront; an https logo’s origin, and only it, added to img-src', () => {
    const page = renderWith(view, { offerings: [], theme: { logoUrl: 'https://cdn.shop.example/logo.svg?v=2&s=1' } }, `Acme & "Co"`);
    assert.ok(
      page.html.includes(
        '<main>\n<img class="logo" src="https://cdn.shop.example/logo.svg?v=2&amp;s=1" alt="Acme &amp; &quot;Co&quot;">\n<h1>Acme &amp; &quot;Co&quot;</h1>',
      ),
    );
    assert.equal(page.imageOrigin, 'https://cdn.shop.example');
    assert.equal(
      pricingPageCsp(page),
      `default-src 'none'; style-src ${page.styleHash}; img-src 'self' data: https://cdn.shop.example; base-uri 'none'; form-action 'none'; frame-ancestors *`,
    );
  });

  it('a data: logo needs nothing more than data:', () => {
    const page = renderWith(view, { offerings: [], theme: { logoUrl: 'data:image/png;base64,iVBORw0KGgo=' } });
    assert.ok(page.html.includes('<img class="logo" src="data:image/png;base64,iVBORw0KGgo=" alt="Acme pricing">'));
    assert.equal(page.imageOrigin, null);
    assert.equal(
      pricingPageCsp(page),
      `default-src 'none'; style-src ${page.styleHash}; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors *`,
    );
  });

  it('no logo: no image, and the CSP as strict as ever', () => {
    const page = renderWith(view, { offerings: [], theme: { logoUrl: 'http://insecure.example/logo.png' } });
    assert.doesNotMatch(page.html, /<img/);
    assert.equal(page.imageOrigin, null);
  });

  it('is deterministic with display settings too', () => {
    const display: StorefrontDisplay = {
      offerings: [settings('o1', { highlighted: true, callToAction: { label: 'Go', url: 'https://a.example/' } })],
      theme: { accentColor: '#123456', logoUrl: 'https://a.example/l.png' },
    };
    assert.deepEqual(renderWith(view, display), renderWith(structuredClone(view), structuredClone(display)));
  });
});

/* ----------------------------------------------------------------------------------------------
 * GET /pricing/:storefrontId
 * -------------------------------------------------------------------------------------------- */

describe('GET /pricing/:storefrontId', () => {
  let t: TestApp;
  let demo: DemoEnvironment;
  let ctx: OperationContext;

  before(async () => {
    t = await createTestApp();
    const created = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'pricing-page-test' });
    demo = created.environments.test;
    ctx = { workspaceId: created.workspaceId, environment: 'test', actor: { type: 'OPERATOR', id: 'test' }, correlationId: 'pricing-page-test', source: 'cli' };
  });
  after(() => t?.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  const cspFor = (html: string, imgSrc = "'self' data:") => {
    const css = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] as string;
    const hash = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
    return `default-src 'none'; style-src ${hash}; img-src ${imgSrc}; base-uri 'none'; form-action 'none'; frame-ancestors *`;
  };

  it('200 renders the published demo storefront as HTML, with the caching and security headers', async () => {
    const res = await get(demo.pricingPagePath);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'public, max-age=60');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-security-policy'], cspFor(res.body));
    const etag = `"${createHash('sha256').update(res.body).digest('base64url').slice(0, 27)}"`;
    assert.equal(res.headers.etag, etag);
    assert.equal(res.headers['set-cookie'], undefined);
    assert.ok(res.headers['x-ratelimit-limit'], 'a public route is rate-limited per IP');
    assert.deepEqual(headings(res.body, 1), ['Demo pricing']);
    // Pro monthly and annually, one slot, one view each; a button on every card; the theme and logo.
    assert.deepEqual(headings(res.body, 2), ['Starter', 'Pro', 'Pro', 'Agents']);
    assert.deepEqual(texts(res.body, 'price'), ['Usage-based', '$49.00/mo', '$490.00/yr', '$199.00/mo']);
    assert.deepEqual(texts(res.body, 'savings'), ['Save 16% against monthly']);
    assert.deepEqual(texts(res.body, 'trial'), ['14-day free trial']);
    assert.deepEqual(texts(res.body, 'badge'), ['Most popular', 'Most popular']);
    assert.deepEqual(
      [...res.body.matchAll(/<a class="cta" href="([^"]+)" target="_top" rel="noopener"[^>]*>([^<]+)<\/a>/g)].map((m) => [
        m[1]?.replace(/off_\w+/, 'off_…'),
        m[2],
      ]),
      [
        ['https://example.com/signup?offering=off_…', 'Start for free'],
        ['https://example.com/signup?offering=off_…', 'Choose Pro'],
        ['https://example.com/signup?offering=off_…', 'Choose Pro yearly'],
        ['https://example.com/signup?offering=off_…', 'Start free trial'],
      ],
    );
    assert.ok(res.body.includes(`href="https://example.com/signup?offering=${demo.offeringId}"`), 'the monthly Pro’s button names it');
    assert.match(res.body, /<input type="radio" name="period" id="period-annual"/);
    assert.match(res.body, /<img class="logo" src="data:image\/svg\+xml;base64,[^"]+" alt="Demo pricing">/);
    assert.match(res.body, /--accent:#5b21b6;/);
    const headlines = texts(res.body, 'headline');
    for (const h of [
      '$0.0020 / call after 1,000 free',
      'From $0.00001 / token',
      '$1.50 per 1,000 calls after 100,000 free',
      'Free up to 5 seats, then from $40.00/mo',
      '$0.0500 / run after 100 free',
    ]) {
      assert.ok(headlines.includes(h), h);
    }
    assert.doesNotMatch(res.body, /<script/i);
  });

  it('200 the live environment has its own published page', async () => {
    const created = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'pricing-page-live' });
    const res = await get(created.environments.live.pricingPagePath);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(headings(res.body, 2), ['Starter', 'Pro', 'Pro', 'Agents']);
  });

  it('304 for a matching If-None-Match (also weak or in a list), with the ETag and no body; 200 for another', async () => {
    const first = await get(demo.pricingPagePath);
    const etag = first.headers.etag as string;
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await get(demo.pricingPagePath, { 'if-none-match': inm });
      assert.equal(res.statusCode, 304, inm);
      assert.equal(res.headers.etag, etag);
      assert.equal(res.headers['cache-control'], 'public, max-age=60');
      assert.equal(res.body, '');
    }
    const other = await get(demo.pricingPagePath, { 'if-none-match': '"something-else"' });
    assert.equal(other.statusCode, 200);
    assert.equal(other.body, first.body);
  });

  it('404 HTML (not JSON) for an unknown storefront id', async () => {
    for (const id of ['sf_00000000000000000000000000', 'nope', '%3Cscript%3E']) {
      const res = await get(`/pricing/${id}`);
      assert.equal(res.statusCode, 404, id);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['content-security-policy'], cspFor(res.body));
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(res.body, /^<!doctype html>/);
      assert.match(res.body, /Pricing page not found/);
      assert.doesNotMatch(res.body, /<script/i);
      assert.throws(() => JSON.parse(res.body));
    }
  });

  it('404 the same page for a storefront that was never published', async () => {
    const draft = await createStorefront(t.deps, ctx, { name: 'Secret draft', offeringIds: [demo.offeringId] });
    const res = await get(`/pricing/${draft.id}`);
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.body, (await get('/pricing/sf_unknown')).body);
    assert.doesNotMatch(res.body, /Secret draft|Pro/);
  });

  it('shows only published offerings: a draft-only offering appears once published, and the ETag changes', async () => {
    const offering = await createOffering(t.deps, ctx, {
      productId: demo.productId,
      name: 'Draft only',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      entryPrice: '9',
    });
    const before = await get(demo.pricingPagePath);
    await updateStorefront(t.deps, ctx, demo.storefrontId, { offeringIds: [demo.offeringId, offering.id] });
    const draftOnly = await get(demo.pricingPagePath);
    assert.equal(draftOnly.statusCode, 200);
    assert.doesNotMatch(draftOnly.body, /Draft only/);
    assert.deepEqual(headings(draftOnly.body, 2), ['Starter', 'Pro', 'Pro', 'Agents']);
    assert.equal(draftOnly.headers.etag, before.headers.etag);

    await publishStorefront(t.deps, ctx, demo.storefrontId);
    const published = await get(demo.pricingPagePath);
    assert.deepEqual(headings(published.body, 2), ['Pro', 'Draft only']);
    assert.notEqual(published.headers.etag, before.headers.etag);
    const stale = await get(demo.pricingPagePath, { 'if-none-match': before.headers.etag as string });
    assert.equal(stale.statusCode, 200);
  });

  it('escapes an operator-chosen storefront and offering name end to end', async () => {
    const evil = `<script>alert("x")</script> & 'Co'`;
    const offering = await createOffering(t.deps, ctx, { productId: demo.productId, name: evil, currency: 'USD', billingPeriod: 'MONTHLY', entryPrice: '5' });
    const sf = await createStorefront(t.deps, ctx, { name: evil, offeringIds: [offering.id] });
    await publishStorefront(t.deps, ctx, sf.id);
    const res = await get(`/pricing/${sf.id}`);
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(res.body, /<script/i);
    assert.deepEqual(headings(res.body, 1), ['&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;']);
  });

  it("a seller's https logo: its origin, and only it, joins img-src; a hostile button label is escaped end to end", async () => {
    const evil = `<b onclick="x">Go</b>`;
    const sf = await createStorefront(t.deps, ctx, {
      name: 'Themed',
      offeringIds: [demo.offeringId],
      offeringDisplay: [{ offeringId: demo.offeringId, highlighted: true, callToAction: { label: evil, url: 'https://shop.example/a?b=1&c=2' } }],
      theme: { logoUrl: 'https://cdn.shop.example/logo.png', accentColor: '#fde047' },
    });
    await publishStorefront(t.deps, ctx, sf.id);
    const res = await get(`/pricing/${sf.id}`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-security-policy'], cspFor(res.body, "'self' data: https://cdn.shop.example"));
    assert.ok(
      res.body.includes(
        'href="https://shop.example/a?b=1&amp;c=2" target="_top" rel="noopener" aria-describedby="offering-1">&lt;b onclick=&quot;x&quot;&gt;Go&lt;/b&gt;</a>',
      ),
    );
    assert.doesNotMatch(res.body, /<b /);
    // A yellow too light for text on white: near-black on it, and the default blue for prices.
    assert.match(res.body, /--accent:#fde047;--on-accent:#111827;--accent-ink:#1e40af;/);
  });

  it('is documented in OpenAPI under Headless pricing, as text/html', async () => {
    const doc = (await get('/openapi.json')).json();
    const op = doc.paths['/pricing/{storefrontId}']?.get;
    assert.ok(op, 'GET /pricing/{storefrontId} is documented');
    assert.deepEqual(op.tags, ['Headless pricing']);
    assert.ok(op.summary);
    assert.deepEqual(Object.keys(op.responses['200'].content), ['text/html']);
    assert.deepEqual(Object.keys(op.responses['404'].content), ['text/html']);
    assert.equal(op.responses['304'].content, undefined);
    assert.deepEqual(op.security, [], 'public: no credential');
  });
});
