/**
 * Every display rule through every surface (issue 23, item 5): one catalog, built here in
 * @tollgate/pricing's types, with a unit per pricing model, is shown by
 * - the hosted pricing page: the HTML of renderPricingPage;
 * - the widget's step 1: its presenters (candidatePrice, candidatePerMonth, candidateUnits) and
 *   its message catalogue, the exact text its template renders;
 * - the console's plan preview: each rate plan as the console edits it (draftOf), through its
 *   live preview (previewOf), rendered by the PlanPreview component itself. The component is
 *   built with the console's own JSX setup (esbuild, preact's automatic runtime: the test runner
 *   has none) and its function components called as Preact calls them; it has no hooks, so its
 *   output is a pure function of its props.
 * RULES below writes out, for each rule, the text a buyer reads: it must appear, exactly, as the
 * text of an element on every surface that shows that rule. The last describe checks that the
 * three surfaces take their words from the one module (@tollgate/pricing) and format no money of
 * their own.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BillingPeriod, Offering, PricingModel, RatePlan, UnitPricing } from '@tollgate/pricing';
import { renderPricingPage } from '../src/modules/catalog/pricing-page.js';
import type { WidgetConfig } from '../../widget/src/api.js';
import { messages } from '../../widget/src/messages.js';
import { candidatePerMonth, candidatePrice, candidateUnits } from '../../widget/src/present.js';
import { draftOf, previewOf, type Preview } from '../../console/src/plan-form.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/* ----------------------------------------------------------------------------------------------
 * The catalog: every pricing model, units with and without a display name and unit
 * -------------------------------------------------------------------------------------------- */

interface Labels {
  displayName: string | null;
  unit: string | null;
}

function unit(metricName: string, pricingModel: PricingModel, labels: Labels, over: Partial<UnitPricing> = {}): UnitPricing {
  return {
    metricId: `met_${metricName}`,
    metricName,
    pricingModel,
    rate: '0',
    includedFree: 0,
    blockSize: null,
    minFee: null,
    tiers: [],
    outcomeWeights: null,
    metricDisplayName: labels.displayName,
    metricUnit: labels.unit,
    ...over,
  };
}

const USAGE_UNITS: UnitPricing[] = [
  unit('api_calls', 'PER_UNIT', { displayName: 'API calls', unit: 'call' }, { rate: '0.002', includedFree: 1000, minFee: '5' }),
  unit('payment_volume', 'PERCENTAGE', { displayName: 'Payment volume', unit: 'USD' }, { rate: '2.9' }),
  unit('storage', 'INCLUDED_QUOTA', { displayName: 'Storage', unit: 'GB-month' }, { rate: '0.01', includedFree: 10000 }),
  unit('emails', 'INCLUDED_QUOTA', { displayName: 'Emails', unit: 'email' }, { rate: '1.5', blockSize: 1000, includedFree: 5000 }),
  unit(
    'tokens',
    'GRADUATED',
    { displayName: 'Tokens', unit: 'token' },
    {
      tiers: [
        { tierStart: 0, tierEnd: 1000, unitPrice: '0.002', flatFee: null },
        { tierStart: 1000, tierEnd: 10000, unitPrice: '0.0015', flatFee: null },
        { tierStart: 10000, tierEnd: null, unitPrice: '0.001', flatFee: null },
      ],
    },
  ),
  unit(
    'searches',
    'VOLUME_TIERED',
    { displayName: 'Searches', unit: 'search' },
    {
      tiers: [
        { tierStart: 0, tierEnd: 1000, unitPrice: '0.01', flatFee: null },
        { tierStart: 1000, tierEnd: null, unitPrice: '0.008', flatFee: null },
      ],
    },
  ),
  unit(
    'active_users',
    'STAIRCASE',
    { displayName: 'Active users', unit: 'user' },
    {
      tiers: [
        { tierStart: 0, tierEnd: 10, unitPrice: null, flatFee: '0' },
        { tierStart: 10, tierEnd: 100, unitPrice: null, flatFee: '25' },
        { tierStart: 100, tierEnd: null, unitPrice: null, flatFee: '100' },
      ],
    },
  ),
  unit(
    'agent_runs',
    'OUTCOME_BASED',
    { displayName: 'Agent runs', unit: 'run' },
    { rate: '0.05', includedFree: 100, outcomeWeights: { TIMEOUT: 0.25, ERROR: 0, PARTIAL: 0.5, SUCCESS: 1 } },
  ),
  // No display name, no unit: the name made readable, and "unit".
  unit('legacy_requests', 'PER_UNIT', { displayName: null, unit: null }, { rate: '0.0005' }),
];

const plan = (id: string, name: string, billingPeriod: BillingPeriod, metrics: UnitPricing[]): RatePlan => ({
  id,
  name,
  currency: 'USD',
  billingPeriod,
  metrics,
});

const RATE_PLANS: RatePlan[] = [
  plan('plan_usage', 'Usage', 'MONTHLY', USAGE_UNITS),
  plan('plan_base', 'Base', 'MONTHLY', [
    unit('platform', 'FLAT_RATE', { displayName: 'Platform fee', unit: null }, { rate: '49' }),
    unit('support', 'FLAT_RATE', { displayName: 'Email support', unit: null }, { rate: '0' }),
  ]),
  plan('plan_base_annual', 'Base, annual', 'ANNUAL', [unit('platform', 'FLAT_RATE', { displayName: 'Platform fee', unit: null }, { rate: '490' })]),
  plan('plan_enterprise', 'Enterprise terms', 'MONTHLY', []),
];

const offering = (id: string, name: string, over: Partial<Offering>): Offering => ({
  id,
  name,
  billingMode: 'POSTPAID',
  currency: 'USD',
  entryPrice: null,
  billingPeriod: 'MONTHLY',
  trialDays: 0,
  ratePlanIds: [],
  ...over,
});

const OFFERINGS: Offering[] = [
  offering('off_free', 'Free', { entryPrice: '0', ratePlanIds: ['plan_base'] }),
  offering('off_payg', 'Pay as you go', { ratePlanIds: ['plan_usage'] }),
  offering('off_pro', 'Pro', { entryPrice: '49', trialDays: 14, ratePlanIds: ['plan_base', 'plan_usage'] }),
  offering('off_pro_annual', 'Pro', { entryPrice: '490', billingPeriod: 'ANNUAL', trialDays: 14, ratePlanIds: ['plan_base_annual', 'plan_usage'] }),
  offering('off_enterprise', 'Enterprise', { ratePlanIds: ['plan_enterprise'] }),
];

/* ----------------------------------------------------------------------------------------------
 * The rules, and the text each one shows
 * -------------------------------------------------------------------------------------------- */

type Surface = 'page' | 'widget' | 'console';

/**
 * A rule of the display module and what a buyer reads for it. `unit`: the unit's label and
 * headline (the widget words them as one line, "label: headline"); `lines`: more text every
 * surface shows; `tables`: tier rows, outcome weights and the weights' note, which the page and
 * the console show and the widget, a compact list, leaves out. `surfaces`: where the rule shows
 * (the console previews a rate plan, so offering-level rules are not its; the widget changes a
 * plan, which starts no trial, so it does not offer one).
 */
interface Rule {
  rule: string;
  surfaces: Surface[];
  unit?: { label: string; headline: string };
  lines?: string[];
  tables?: string[];
}

const ALL: Surface[] = ['page', 'widget', 'console'];
const OFFERING_LEVEL: Surface[] = ['page', 'widget'];

const RULES: Rule[] = [
  {
    rule: 'PER_UNIT with includedFree: the rate to four decimals, per unit name, after the allowance; a minimum fee',
    surfaces: ALL,
    unit: { label: 'API calls', headline: '$0.0020 / call after 1,000 free' },
    lines: ['Minimum $5.00/mo'],
  },
  { rule: 'FLAT_RATE: a per-period amount with its suffix', surfaces: ALL, unit: { label: 'Platform fee', headline: '$49.00/mo' } },
  { rule: 'FLAT_RATE zero: "Free", without a suffix', surfaces: ALL, unit: { label: 'Email support', headline: 'Free' } },
  { rule: 'FLAT_RATE on an annual plan: the /yr suffix', surfaces: ALL, unit: { label: 'Platform fee', headline: '$490.00/yr' } },
  { rule: 'PERCENTAGE: a percent, never money', surfaces: ALL, unit: { label: 'Payment volume', headline: '2.9% of transaction value' } },
  {
    rule: 'INCLUDED_QUOTA per unit: the overage rate per unit name (a multi-word unit) after the allowance',
    surfaces: ALL,
    unit: { label: 'Storage', headline: '$0.0100 / GB-month after 10,000 free' },
  },
  {
    rule: 'INCLUDED_QUOTA per block: the block price as money with two decimals, per block of the plural unit',
    surfaces: ALL,
    unit: { label: 'Emails', headline: '$1.50 per 1,000 emails after 5,000 free' },
  },
  {
    rule: 'GRADUATED: "From" the cheapest band, slices ("First", "Next", "Over"), how it bills',
    surfaces: ALL,
    unit: { label: 'Tokens', headline: 'From $0.0010 / token' },
    lines: ['Each token is billed at the rate of the tier it falls in.'],
    tables: ['First 1,000', 'Next 9,000', 'Over 10,000', '$0.0020', '$0.0015', '$0.0010'],
  },
  {
    rule: 'VOLUME_TIERED: totals ("Up to", "Over"), the plural unit ("searches") in how it bills',
    surfaces: ALL,
    unit: { label: 'Searches', headline: 'From $0.0080 / search' },
    lines: ["All searches are billed at the rate of the tier the period's total reaches."],
    tables: ['Up to 1,000', 'Over 1,000', '$0.0100', '$0.0080'],
  },
  {
    rule: 'STAIRCASE with a free band: never "From Free", fees as per-period amounts, a zero fee "Free"',
    surfaces: ALL,
    unit: { label: 'Active users', headline: 'Free up to 10 users, then from $25.00/mo' },
    lines: ["One flat fee: that of the tier the period's total reaches."],
    tables: ['Up to 10', 'Over 10 up to 100', 'Over 100', '$25.00', '$100.00'],
  },
  {
    rule: "OUTCOME_BASED: the rate per unit name after the allowance, the weights in the spec's order, what other statuses bill",
    surfaces: ALL,
    unit: { label: 'Agent runs', headline: '$0.0500 / run after 100 free' },
    tables: ['Other statuses bill at full price'],
  },
  {
    rule: 'a unit without a display name or unit: its name made readable, "unit"',
    surfaces: ALL,
    unit: { label: 'Legacy requests', headline: '$0.0005 / unit' },
  },
  { rule: 'a plan with no units: "Contact sales"', surfaces: ['page', 'console'], lines: ['Contact sales'] },
  { rule: 'an entry price: per period, with the suffix', surfaces: OFFERING_LEVEL, lines: ['$49.00/mo'] },
  { rule: 'a zero entry price: "Free"', surfaces: OFFERING_LEVEL, lines: ['Free'] },
  { rule: 'no entry price, plans with units: "Usage-based"', surfaces: OFFERING_LEVEL, lines: ['Usage-based'] },
  { rule: 'no entry price, no units: "Contact sales"', surfaces: OFFERING_LEVEL, lines: ['Contact sales'] },
  { rule: 'an annual offering: its price per year, compared per month', surfaces: OFFERING_LEVEL, lines: ['$490.00/yr', 'Equivalent to $40.83/mo'] },
  { rule: 'a trial', surfaces: ['page'], lines: ['14-day free trial'] },
];

/** The outcome weights, status by status, each status named for people ("Success", not "SUCCESS"). */
const WEIGHTS = ['Success: full price', 'Partial: half price', 'Error: free', 'Timeout: 25% of price'];

/** What a surface must show for a rule: each string exactly, as one element's text. */
function expectedOn(surface: Surface, r: Rule): string[] {
  const unitText = r.unit ? (surface === 'widget' ? [`${r.unit.label}: ${r.unit.headline}`] : [r.unit.label, r.unit.headline]) : [];
  return [...unitText, ...(r.lines ?? []), ...(surface === 'widget' ? [] : (r.tables ?? []))];
}

/* ----------------------------------------------------------------------------------------------
 * The surfaces, each reduced to the texts of its elements
 * -------------------------------------------------------------------------------------------- */

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The text of each element of an HTML document, in order: the text between two tags, trimmed. */
function textsOf(html: string): string[] {
  return html
    .replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/g, '')
    .split(/<[^>]*>/)
    .map((t) =>
      t
        .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] as string)
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((t) => t !== '');
}

const escapeText = (text: string) => text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string);

/**
 * Preact's virtual DOM as HTML: function components called with their props, as Preact calls
 * them, elements with their children (attributes are not needed to read the text).
 */
function vnodeHtml(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return escapeText(String(node));
  if (Array.isArray(node)) return node.map(vnodeHtml).join('');
  const { type, props } = node as { type: unknown; props: { children?: unknown } };
  if (typeof type === 'function') return vnodeHtml((type as (p: unknown) => unknown)(props));
  return `<${String(type)}>${vnodeHtml(props.children)}</${String(type)}>`;
}

/** The console's component, built as the console builds it (esbuild, preact's automatic JSX runtime). */
async function loadPlanPreview(): Promise<(props: { preview: Preview }) => unknown> {
  const out = await build({
    entryPoints: [`${root}packages/console/src/components/plan-preview.tsx`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    conditions: ['tollgate-source'],
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]?.text ?? '';
  const mod = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as {
    PlanPreview: (props: { preview: Preview }) => unknown;
  };
  return mod.PlanPreview;
}

/** What the console's metrics list says of a metric (its preview words units with these). */
interface MetricLabel {
  name: string;
  displayName: string | null;
  unit: string | null;
}

const METRIC_LABELS: MetricLabel[] = RATE_PLANS.flatMap((p) =>
  p.metrics.map((m) => ({ name: m.metricName, displayName: m.metricDisplayName ?? null, unit: m.metricUnit ?? null })),
);

const texts = new Map<Surface, Set<string>>();

before(async () => {
  const page = renderPricingPage({ storefrontName: 'Every rule', view: { offerings: OFFERINGS, ratePlans: RATE_PLANS } }).html;
  texts.set('page', new Set(textsOf(page)));

  // The widget's step 1: what its template renders from its presenters and messages, per offering.
  const config: WidgetConfig = { currentOfferingId: 'off_free', offerings: OFFERINGS, ratePlans: RATE_PLANS };
  const widget = OFFERINGS.flatMap((o) => {
    const perMonth = candidatePerMonth(config, o.id);
    return [
      candidatePrice(config, o.id),
      ...(perMonth === null ? [] : [messages.perMonth(perMonth)]),
      ...candidateUnits(config, o.id).flatMap((u) => [u.text, ...(u.note === null ? [] : [u.note]), ...(u.minimum === null ? [] : [u.minimum])]),
    ];
  });
  texts.set('widget', new Set(widget));

  const PlanPreview = await loadPlanPreview();
  const previews = RATE_PLANS.map((p) => {
    const preview = previewOf(draftOf({ ...p, version: 1, updatedAt: '2026-04-01T00:00:00.000Z' }), METRIC_LABELS);
    assert.deepEqual(preview.issues, [], `${p.name}: the console reads the plan back whole`);
    return vnodeHtml(PlanPreview({ preview }));
  });
  texts.set('console', new Set(previews.flatMap(textsOf)));
});

/* ----------------------------------------------------------------------------------------------
 * The checks
 * -------------------------------------------------------------------------------------------- */

function assertShows(surface: Surface, expected: string[]): void {
  const seen = texts.get(surface);
  assert.ok(seen, `${surface} rendered`);
  const missing = expected.filter((text) => !seen.has(text));
  // Each missing text with what the surface shows in its place (the texts sharing a word), not the whole page.
  const near = (text: string) => [...seen].filter((s) => text.split(' ').some((word) => word.length > 3 && s.includes(word))).slice(0, 6);
  assert.deepEqual(
    missing.map((text) => ({ text, near: near(text) })),
    [],
    `${surface} does not show ${JSON.stringify(missing)}`,
  );
}

describe('every display rule reads the same on the pricing page, in the widget and in the console preview', () => {
  for (const r of RULES) {
    describe(r.rule, () => {
      for (const surface of r.surfaces) {
        it(`${surface}: ${JSON.stringify(expectedOn(surface, r))}`, () => {
          assertShows(surface, expectedOn(surface, r));
        });
      }
    });
  }

  describe('OUTCOME_BASED weights: each status in words, then its share of the price', () => {
    it(`page: ${JSON.stringify(WEIGHTS)}`, () => assertShows('page', WEIGHTS));
    it(`console: ${JSON.stringify(WEIGHTS)}`, () => assertShows('console', WEIGHTS));
  });

  it('the table covers every pricing model', () => {
    const models = new Set(RATE_PLANS.flatMap((p) => p.metrics.map((m) => m.pricingModel)));
    assert.deepEqual([...models].sort(), ['FLAT_RATE', 'GRADUATED', 'INCLUDED_QUOTA', 'OUTCOME_BASED', 'PERCENTAGE', 'PER_UNIT', 'STAIRCASE', 'VOLUME_TIERED']);
  });
});

/* ----------------------------------------------------------------------------------------------
 * One module
 * -------------------------------------------------------------------------------------------- */

describe('the three surfaces take their words from the one display module', () => {
  /** A file's code: comments may quote prices ("$40.83/mo"), so they are left out. */
  const source = (path: string) =>
    readFileSync(`${root}${path}`, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
  /** Formatting money or numbers by hand, which only packages/pricing/src/display.ts may do. */
  const OWN_FORMATTING: Array<[string, RegExp]> = [
    ['Intl number formatting', /Intl\.NumberFormat|toLocaleString\(|formatToParts\(/],
    ['rounding with toFixed', /\.toFixed\(/],
    ['a currency symbol written out', /['"`][$€£¥]\s*(\d|\$\{)/],
    ['a decimal library of its own', /from ['"]decimal\.js['"]/],
  ];
  const catalog = 'packages/server/src/modules/catalog/';
  // The page's module first (it imports the wording), then any module it is split into.
  const pageFiles = readdirSync(`${root}${catalog}`)
    .filter((f) => /^pricing-page[\w.-]*\.ts$/.test(f) && !f.endsWith('.test.ts'))
    .sort((a, b) => Number(b === 'pricing-page.ts') - Number(a === 'pricing-page.ts'))
    .map((f) => `${catalog}${f}`);
  const surfaces: Array<[string, string[]]> = [
    ['the pricing page', pageFiles],
    ['the widget', ['packages/widget/src/present.ts', 'packages/widget/src/tollgate-upgrade-cancel.ts', 'packages/widget/src/messages.ts']],
    ['the console preview', ['packages/console/src/plan-form.ts', 'packages/console/src/components/plan-preview.tsx']],
  ];
  for (const [name, files] of surfaces) {
    it(`${name} imports @tollgate/pricing and formats no money of its own`, () => {
      const [wording] = files;
      assert.match(source(wording as string), /from '@tollgate\/pricing'/, `${wording} takes its wording from @tollgate/pricing`);
      for (const file of files) {
        for (const [what, pattern] of OWN_FORMATTING) assert.doesNotMatch(source(file), pattern, `${file}: ${what}`);
      }
    });
  }
});
