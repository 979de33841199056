import { Decimal, toDecimalText } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { catalogChanged } from './catalog-changed.js';
import { checkOffering } from './check-offering.js';
import { checkRecurringCredits, type CreateOfferingInput, type Offering } from './offering.js';
import { insertOffering } from './offering.repository.js';

export async function createOffering(deps: Deps, ctx: OperationContext, input: CreateOfferingInput): Promise<Offering> {
  const billingMode = input.billingMode ?? 'POSTPAID';
  if (billingMode === 'POSTPAID' && input.overage !== undefined)
    throw new AppError('VALIDATION_FAILED', 'overage applies to PREPAID offerings only: a POSTPAID offering bills all of its usage in arrears.', {
      field: 'body.overage',
    });
  const draft = {
    productId: input.productId,
    currency: input.currency,
    billingPeriod: input.billingPeriod,
    entryPrice: input.entryPrice ?? null,
    ratePlanIds: input.ratePlanIds ?? [],
    overrides: input.overrides ?? [],
  };
  const overrides = await checkOffering(deps.db, ctx, draft);
  const now = deps.clock.now();
  const offering: Offering = {
    id: deps.ids.next('offering'),
    environment: ctx.environment,
    ...draft,
    // Stored canonical ("49.9"); display code shows two decimals.
    entryPrice: draft.entryPrice === null ? null : toDecimalText(new Decimal(draft.entryPrice)),
    overrides,
    name: input.name,
    billingMode,
    overage: billingMode === 'PREPAID' ? (input.overage ?? 'BILL') : null,
    recurringCredits: checkRecurringCredits(input.recurringCredits ?? null, billingMode, input.currency),
    trialDays: input.trialDays ?? 0,
    metadata: input.metadata ?? {},
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertOffering(trx, ctx, offering);
    await recordAudit(trx, deps, ctx, {
      eventType: 'offering.created',
      targetType: 'offering',
      targetId: offering.id,
      payload: {
        name: offering.name,
        entryPrice: offering.entryPrice,
        currency: offering.currency,
        ratePlanIds: offering.ratePlanIds,
        billingMode: offering.billingMode,
        overage: offering.overage,
        recurringCredits: offering.recurringCredits,
      },
    });
  });
  await catalogChanged(deps);
  return offering;
}
