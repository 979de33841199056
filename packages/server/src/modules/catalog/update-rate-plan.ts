import type { CatalogUnitPricing } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound, type ErrorDetail } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { catalogChanged } from './catalog-changed.js';
import { checkRatePlanUnits, failValidation } from './check-rate-plan-units.js';
import { checkRatePlanLimits } from './check-rate-plan-limits.js';
import type { Offering } from './offering.js';
import { findOfferingsWithPlan, updateOfferingRow } from './offering.repository.js';
import type { RatePlan, UpdateRatePlanInput } from './rate-plan.js';
import { findRatePlan, findRatePlans, updateRatePlanRow } from './rate-plan.repository.js';

/**
 * Name, units, default usage limits and metadata can change; currency and billing period cannot
 * (offerings and subscriptions were set up in them). A change shows at once in every storefront
 * that includes the plan (its configuration etag changes); new prices rate its subscribers from
 * their next period, new limits apply at their next entitlement check (catalogChanged clears the
 * cached answers on every node).
 */
export async function updateRatePlan(deps: Deps, ctx: OperationContext, id: string, input: UpdateRatePlanInput): Promise<RatePlan> {
  const current = await findRatePlan(deps.db, ctx, id);
  if (!current) throw notFound('rate plan', id);
  const metrics = input.metrics ? await checkRatePlanUnits(deps.db, ctx, input.metrics, current.currency) : current.metrics;
  const offerings = input.metrics ? await findOfferingsWithPlan(deps.db, ctx, id) : [];
  await checkOfferingsStillPriceUnitsOnce(deps, ctx, id, metrics, offerings);
  // A default limit of a unit the plan no longer prices goes with the unit, as offerings' overrides do.
  const units = new Set(metrics.map((u) => u.metricName));
  const usageLimits = input.usageLimits ?? current.usageLimits.filter((l) => units.has(l.metricName));
  const droppedLimits = input.usageLimits ? [] : current.usageLimits.filter((l) => !units.has(l.metricName)).map((l) => l.metricName);
  if (input.usageLimits) {
    const bad = checkRatePlanLimits(input.usageLimits, metrics);
    if (bad.length > 0) failValidation(bad);
  }
  const next: RatePlan = {
    ...current,
    name: input.name ?? current.name,
    metadata: input.metadata ?? current.metadata,
    metrics,
    usageLimits,
    version: current.version + 1,
    updatedAt: deps.clock.now(),
  };
  await inTransaction(deps.db, async (trx) => {
    if (!(await updateRatePlanRow(trx, ctx, next, current.version))) {
      throw new AppError('CONFLICT', `Rate plan ${id} was changed by another request; read it again and retry.`);
    }
    // An offering's override of a unit the plan no longer has would be dead and would fail
    // the offering's next update: it goes with the unit.
    const kept = new Set(metrics.map((u) => u.metricName));
    for (const o of offerings) {
      const dropped = o.overrides.filter((x) => x.ratePlanId === id && !kept.has(x.metricName));
      if (dropped.length === 0) continue;
      const next = { ...o, overrides: o.overrides.filter((x) => !dropped.includes(x)), version: o.version + 1, updatedAt: deps.clock.now() };
      if (!(await updateOfferingRow(trx, ctx, next, o.version))) {
        throw new AppError('CONFLICT', `Offering ${o.id} was changed by another request; retry.`);
      }
      await recordAudit(trx, deps, ctx, {
        eventType: 'offering.updated',
        targetType: 'offering',
        targetId: o.id,
        payload: { droppedOverrides: dropped.map((x) => `${x.ratePlanId}:${x.metricName}`), reason: `unit removed from ${id}`, version: next.version },
      });
    }
    await recordAudit(trx, deps, ctx, {
      eventType: 'rate_plan.updated',
      targetType: 'rate_plan',
      targetId: id,
      payload: { changed: Object.keys(input), version: next.version, ...(droppedLimits.length > 0 ? { droppedUsageLimits: droppedLimits } : {}) },
    });
  });
  await catalogChanged(deps);
  return next;
}

/** An offering prices each unit once: the plan's new units must not be priced by another plan of an offering that has it. */
async function checkOfferingsStillPriceUnitsOnce(
  deps: Deps,
  ctx: OperationContext,
  planId: string,
  metrics: readonly CatalogUnitPricing[],
  offerings: readonly Offering[],
): Promise<void> {
  const others = await findRatePlans(
    deps.db,
    ctx,
    offerings.flatMap((o) => o.ratePlanIds.filter((x) => x !== planId)),
  );
  const details: ErrorDetail[] = [];
  metrics.forEach((u, i) => {
    for (const o of offerings) {
      const clash = o.ratePlanIds.map((x) => others.get(x)).find((p) => p && p.id !== planId && p.metrics.some((m) => m.metricName === u.metricName));
      if (clash) {
        details.push({
          code: 'VALIDATION_FAILED',
          field: `body.metrics.${i}.metricName`,
          message: `Offering ${o.id} also has rate plan ${clash.id}, which prices '${u.metricName}'; an offering prices each unit once.`,
        });
      }
    }
  });
  if (details.length > 0) failValidation(details);
}
