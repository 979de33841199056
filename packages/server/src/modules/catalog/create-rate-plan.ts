import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { catalogChanged } from './catalog-changed.js';
import { checkCurrency, checkRatePlanUnits, failValidation } from './check-rate-plan-units.js';
import { checkRatePlanLimits } from './check-rate-plan-limits.js';
import type { CreateRatePlanInput, RatePlan } from './rate-plan.js';
import { insertRatePlan } from './rate-plan.repository.js';

export async function createRatePlan(deps: Deps, ctx: OperationContext, input: CreateRatePlanInput): Promise<RatePlan> {
  const bad = checkCurrency(input.currency, 'body.currency');
  if (bad) failValidation([bad]);
  const metrics = await checkRatePlanUnits(deps.db, ctx, input.metrics, input.currency);
  const usageLimits = input.usageLimits ?? [];
  const badLimits = checkRatePlanLimits(usageLimits, metrics);
  if (badLimits.length > 0) failValidation(badLimits);
  const now = deps.clock.now();
  const plan: RatePlan = {
    id: deps.ids.next('ratePlan'),
    environment: ctx.environment,
    name: input.name,
    currency: input.currency,
    billingPeriod: input.billingPeriod,
    metrics,
    usageLimits,
    metadata: input.metadata ?? {},
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertRatePlan(trx, ctx, plan);
    await recordAudit(trx, deps, ctx, {
      eventType: 'rate_plan.created',
      targetType: 'rate_plan',
      targetId: plan.id,
      payload: {
        name: plan.name,
        currency: plan.currency,
        units: plan.metrics.map((u) => `${u.metricName}:${u.pricingModel}`),
        usageLimits: plan.usageLimits.map((l) => `${l.metricName}:${l.limit}:${l.enforcement}`),
      },
    });
  });
  await catalogChanged(deps);
  return plan;
}
