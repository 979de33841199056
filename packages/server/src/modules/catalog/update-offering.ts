import { Decimal, toDecimalText } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { catalogChanged } from './catalog-changed.js';
import { checkOffering } from './check-offering.js';
import { checkRecurringCredits, type Offering, type UpdateOfferingInput } from './offering.js';
import { findOffering, updateOfferingRow } from './offering.repository.js';

/**
 * Name, entry price, trial, plans, overrides and a PREPAID offering's overage rule and recurring credits can change; a change shows at once in every
 * storefront that includes the offering and in its subscriptions' current period.
 */
export async function updateOffering(deps: Deps, ctx: OperationContext, id: string, input: UpdateOfferingInput): Promise<Offering> {
  const current = await findOffering(deps.db, ctx, id);
  if (!current) throw notFound('offering', id);
  if (input.overage !== undefined && current.billingMode !== 'PREPAID')
    throw new AppError('VALIDATION_FAILED', `overage applies to PREPAID offerings only; offering ${id} is ${current.billingMode}.`, { field: 'body.overage' });
  const entryPrice = input.entryPrice === undefined ? current.entryPrice : input.entryPrice === null ? null : toDecimalText(new Decimal(input.entryPrice));
  const ratePlanIds = input.ratePlanIds ?? current.ratePlanIds;
  // Overrides of plans that are no longer on the offering go with them.
  const overrides = input.overrides ?? current.overrides.filter((o) => ratePlanIds.includes(o.ratePlanId));
  const checkedOverrides = await checkOffering(deps.db, ctx, { ...current, entryPrice, ratePlanIds, overrides });
  const next: Offering = {
    ...current,
    name: input.name ?? current.name,
    trialDays: input.trialDays ?? current.trialDays,
    overage: input.overage ?? current.overage,
    recurringCredits:
      input.recurringCredits === undefined ? current.recurringCredits : checkRecurringCredits(input.recurringCredits, current.billingMode, current.currency),
    metadata: input.metadata ?? current.metadata,
    entryPrice,
    ratePlanIds,
    overrides: checkedOverrides,
    version: current.version + 1,
    updatedAt: deps.clock.now(),
  };
  await inTransaction(deps.db, async (trx) => {
    if (!(await updateOfferingRow(trx, ctx, next, current.version))) {
      throw new AppError('CONFLICT', `Offering ${id} was changed by another request; read it again and retry.`);
    }
    await recordAudit(trx, deps, ctx, {
      eventType: 'offering.updated',
      targetType: 'offering',
      targetId: id,
      payload: { changed: Object.keys(input), version: next.version },
    });
  });
  await catalogChanged(deps);
  return next;
}
