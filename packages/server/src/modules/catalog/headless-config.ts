import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { roundToMinorUnit, type Offering as PublishedOffering, type RatePlan as PublishedRatePlan, type UnitPricing } from '@tollgate/pricing';
import type { MetricLabel } from '../metrics/metric.js';
import type { Offering } from './offering.js';
import type { RatePlan } from './rate-plan.js';
import { CallToActionSchema, EMPTY_STOREFRONT_DISPLAY, StorefrontThemeSchema, type StorefrontDisplay } from './storefront.js';

/**
 * The headless pricing configuration (spec: Headless pricing configuration), built purely from
 * catalog records. Two forms of the same content:
 * - the published view in @tollgate/pricing's types (prices as decimal text), which the hosted
 *   page renders with the same display library a client would use;
 * - the JSON a storefront key reads, exactly in the spec's shape: tier unitPrice and flatFee as
 *   numbers (exact: catalog prices have at most 15 significant digits), no multipliers, no
 *   offering overrides, and the plan-level model fields repeating the FIRST unit only.
 */
export interface StorefrontView {
  offerings: PublishedOffering[];
  ratePlans: PublishedRatePlan[];
}

/**
 * `labels` gives each unit its metric's display name and unit (display only; a metric not found
 * reads as having neither).
 */
export function buildStorefrontView(
  offerings: readonly Offering[],
  plans: ReadonlyMap<string, RatePlan>,
  labels: ReadonlyMap<string, MetricLabel> = new Map(),
): StorefrontView {
  const ratePlans: PublishedRatePlan[] = [];
  const seen = new Set<string>();
  for (const o of offerings) {
    for (const id of o.ratePlanIds) {
      const p = plans.get(id);
      // A plan that cannot be read is omitted; its id stays in ratePlanIds (spec).
      if (!p || seen.has(id)) continue;
      seen.add(id);
      ratePlans.push({
        id: p.id,
        name: p.name,
        currency: p.currency,
        billingPeriod: p.billingPeriod,
        metrics: p.metrics.map(({ multipliers: _rating, ...unit }) => ({
          ...unit,
          metricDisplayName: labels.get(unit.metricId)?.displayName ?? null,
          metricUnit: labels.get(unit.metricId)?.unit ?? null,
        })),
      });
    }
  }
  return {
    offerings: offerings.map((o) => ({
      id: o.id,
      name: o.name,
      billingMode: o.billingMode,
      currency: o.currency,
      entryPrice: o.entryPrice === null ? null : roundToMinorUnit(o.entryPrice, o.currency),
      billingPeriod: o.billingPeriod,
      trialDays: o.trialDays,
      ratePlanIds: [...o.ratePlanIds],
    })),
    ratePlans,
  };
}

const num = (v: string | null) => (v === null ? null : Number(v));

const TierJson = Type.Object({
  tierStart: Type.Number(),
  tierEnd: Type.Union([Type.Number(), Type.Null()], { description: 'null: open-ended.' }),
  unitPrice: Type.Union([Type.Number(), Type.Null()]),
  flatFee: Type.Union([Type.Number(), Type.Null()]),
});
const Model = Type.String({ description: 'PER_UNIT, FLAT_RATE, PERCENTAGE, INCLUDED_QUOTA, GRADUATED, VOLUME_TIERED, STAIRCASE or OUTCOME_BASED.' });
const UnitJson = Type.Object({
  metricId: Type.String(),
  metricName: Type.String({ description: 'As usage events send it; not a display label.' }),
  pricingModel: Model,
  rate: Type.String({ description: 'Decimal. Per unit; FLAT_RATE: fee per period; PERCENTAGE: percent; "0" for tiered models.' }),
  includedFree: Type.Number(),
  blockSize: Type.Union([Type.Number(), Type.Null()]),
  minFee: Type.Union([Type.String(), Type.Null()]),
  tiers: Type.Array(TierJson),
  outcomeWeights: Type.Union([Type.Record(Type.String(), Type.Number()), Type.Null()]),
  metricDisplayName: Type.Union([Type.String(), Type.Null()], {
    description: 'Tollgate addition to the spec\'s fields: the metric\'s name for people ("API calls"); null when it has none.',
  }),
  metricUnit: Type.Union([Type.String(), Type.Null()], {
    description: 'Tollgate addition: what one unit is called, singular ("call"), as in "$0.0020 / call"; null: "unit".',
  }),
});
export const HeadlessConfigSchema = Type.Object(
  {
    schemaVersion: Type.Literal('v1'),
    etag: Type.String({ description: 'Also sent as the ETag header; send it back in If-None-Match for a 304.' }),
    offerings: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        billingMode: Type.String({ description: "POSTPAID, or PREPAID: usage draws from the customer's credit balance." }),
        currency: Type.String(),
        entryPrice: Type.Union([Type.String(), Type.Null()], { description: 'Per billing period; null when usage-only.' }),
        billingPeriod: Type.String({ description: 'MONTHLY, QUARTERLY, ANNUAL or ONE_TIME.' }),
        trialDays: Type.Integer(),
        ratePlanIds: Type.Array(Type.String(), { description: 'Look these up in ratePlans; an id may have no match.' }),
        highlighted: Type.Boolean({ description: 'Tollgate addition: the seller sets this offering apart ("Most popular").' }),
        callToAction: Type.Union([CallToActionSchema, Type.Null()], {
          description: "Tollgate addition: the button the seller wants on this offering's card; null: none.",
        }),
      }),
    ),
    ratePlans: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        currency: Type.String(),
        billingPeriod: Type.String(),
        pricingModel: Type.Union([Model, Type.Null()], { description: 'Repeats metrics[0] for older clients; do not render from it. null without units.' }),
        rate: Type.Union([Type.String(), Type.Null()], { description: 'Repeats metrics[0].' }),
        includedFree: Type.Number({ description: 'Repeats metrics[0]; 0 without units.' }),
        tiers: Type.Array(TierJson, { description: 'Repeats metrics[0].' }),
        metrics: Type.Array(UnitJson, { description: 'Every billable unit: render from this.' }),
      }),
    ),
    theme: Type.Intersect([StorefrontThemeSchema], { description: "Tollgate addition: the seller's look for the hosted page; {} for the default." }),
  },
  { title: 'HeadlessConfig' },
);
export type HeadlessConfig = Static<typeof HeadlessConfigSchema>;

function unitJson(u: UnitPricing): Static<typeof UnitJson> {
  return {
    metricId: u.metricId,
    metricName: u.metricName,
    pricingModel: u.pricingModel,
    rate: u.rate,
    includedFree: u.includedFree,
    blockSize: u.blockSize,
    minFee: u.minFee,
    tiers: u.tiers.map((t) => ({ tierStart: t.tierStart, tierEnd: t.tierEnd, unitPrice: num(t.unitPrice), flatFee: num(t.flatFee) })),
    outcomeWeights: u.outcomeWeights,
    metricDisplayName: u.metricDisplayName ?? null,
    metricUnit: u.metricUnit ?? null,
  };
}

/**
 * `revision` names what was published ("3") or "draft". The etag hashes it with the content, so
 * it changes when the storefront is published or when anything a client reads changes, and
 * only then (a change to multipliers or overrides, which are not published, keeps it).
 */
export function toHeadlessConfig(
  storefrontId: string,
  revision: string,
  view: StorefrontView,
  display: StorefrontDisplay = EMPTY_STOREFRONT_DISPLAY,
): HeadlessConfig {
  const settings = new Map(display.offerings.map((d) => [d.offeringId, d]));
  const body = {
    offerings: view.offerings.map((o) => ({
      ...o,
      highlighted: settings.get(o.id)?.highlighted ?? false,
      callToAction: settings.get(o.id)?.callToAction ?? null,
    })),
    ratePlans: view.ratePlans.map((p) => {
      const metrics = p.metrics.map(unitJson);
      const first = metrics[0];
      return {
        id: p.id,
        name: p.name,
        currency: p.currency,
        billingPeriod: p.billingPeriod,
        pricingModel: first?.pricingModel ?? null,
        rate: first?.rate ?? null,
        includedFree: first?.includedFree ?? 0,
        tiers: first?.tiers ?? [],
        metrics,
      };
    }),
    theme: display.theme,
  };
  const digest = createHash('sha256')
    .update(`${storefrontId}\n${revision}\n${JSON.stringify(body)}`)
    .digest('base64url')
    .slice(0, 27);
  return { schemaVersion: 'v1', etag: `"${digest}"`, ...body };
}

/**
 * If-None-Match per RFC 9110: "*", or a list of entity tags compared weakly (W/ ignored). A bare
 * unquoted tag is accepted too, since clients copy the body's etag by hand.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^"|"$/g, '');
  return ifNoneMatch.split(',').some((raw) => {
    const t = raw.trim();
    if (t === '*') return true;
    return t.replace(/^W\//, '').replace(/^"|"$/g, '') === bare;
  });
}
