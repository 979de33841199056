import { Type, type Static } from '@sinclair/typebox';
import type { BillingPeriod, CatalogUnitPricing } from '@tollgate/pricing';
import { toIso } from '../../lib/clock.js';
import { Environment, Metadata, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { BillingPeriodSchema, CatalogUnitSchema, CurrencyCode, UnitPricingBody } from './catalog-schemas.js';

/** A rate plan: how each billable unit is priced, in one currency, per billing period. */
export interface RatePlan {
  id: string;
  environment: Env;
  name: string;
  currency: string;
  billingPeriod: BillingPeriod;
  metrics: CatalogUnitPricing[];
  metadata: Record<string, string>;
  /** Increases with every change; offerings and storefronts show the plan as it is now. */
  version: number;
  createdAt: number;
  updatedAt: number;
}

export const RatePlanSchema = Type.Object(
  {
    id: Type.String({ description: 'plan_…' }),
    object: Type.Literal('rate_plan'),
    environment: Environment,
    name: Type.String(),
    currency: CurrencyCode,
    billingPeriod: BillingPeriodSchema,
    metrics: Type.Array(CatalogUnitSchema, { description: 'Every billable unit on the plan, with the rating-only multipliers.' }),
    metadata: Metadata,
    version: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'RatePlan' },
);

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Units = Type.Array(UnitPricingBody, { maxItems: 50, description: 'Each unit once; a plan with no units reads "Contact sales".' });

export const CreateRatePlanBody = Type.Object(
  { name: Name, currency: CurrencyCode, billingPeriod: BillingPeriodSchema, metrics: Units, metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);
export type CreateRatePlanInput = Static<typeof CreateRatePlanBody>;

/** Currency and period are fixed at creation: offerings and subscriptions rely on them. metrics is replaced whole. */
export const UpdateRatePlanBody = Type.Object(
  { name: Type.Optional(Name), metrics: Type.Optional(Units), metadata: Type.Optional(Metadata) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateRatePlanInput = Static<typeof UpdateRatePlanBody>;

export function presentRatePlan(p: RatePlan): Static<typeof RatePlanSchema> {
  return {
    ...p,
    object: 'rate_plan',
    metrics: p.metrics.map(({ multipliers, ...u }) => ({ ...u, toolMultipliers: multipliers.tools, endpointMultipliers: multipliers.endpoints })),
    createdAt: toIso(p.createdAt),
    updatedAt: toIso(p.updatedAt),
  };
}
