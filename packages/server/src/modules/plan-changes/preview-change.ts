import type { Static } from '@sinclair/typebox';
import { describeChange } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { totalOf } from '../billing/invoice.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { offerForSubscription } from '../retention-offers/offer-for-subscription.js';
import { checkNothingPending } from './change-plan.js';
import type { ChangePreviewSchema, PreviewChangeInput } from './plan-change.js';
import { quoteChange, type ChangeQuote } from './quote-change.js';

export type ChangePreview = Static<typeof ChangePreviewSchema>;

/** Pure: a quote as the preview shows it. A cancellation now shows no refund figure (spec). */
export function presentQuote(q: ChangeQuote): ChangePreview {
  const immediate = q.applyAt === 'IMMEDIATE';
  const cancel = q.action === 'CANCEL';
  // PERIOD_END bills nothing now: its figures are zero, shown as such.
  const proration = !cancel;
  const interval = q.to?.offering.billingPeriod;
  return {
    object: 'change_preview',
    subscriptionId: q.sub.id,
    subscriptionVersion: q.sub.version,
    action: q.action,
    applyAt: q.applyAt,
    currency: q.sub.currency,
    fromOffering: q.from ? { id: q.from.offering.id, name: q.from.offering.name } : null,
    toOffering: q.to ? { id: q.to.offering.id, name: q.to.offering.name } : null,
    effectiveAt: toIso(q.effectiveAt),
    credit: proration ? q.credit : null,
    debit: proration ? q.debit : null,
    netChargeToday: proration ? q.net : null,
    usageToDate: q.usageTotal,
    invoiceTotal: cancel
      ? immediate && q.usageLines.length > 0
        ? q.usageTotal
        : null
      : q.invoiceLines.length > 0
        ? totalOf(q.invoiceLines, q.sub.currency)
        : null,
    nextRenewalAt: toIsoOrNull(q.nextRenewalAt),
    nextRenewalAmount: q.nextRenewalAmount,
    retentionOffer: null,
    summary: describeChange({
      action: q.action,
      applyAt: q.applyAt,
      currency: q.sub.currency,
      fromName: q.from?.offering.name ?? null,
      toName: q.to?.offering.name ?? null,
      effectiveAt: q.effectiveAt,
      credit: proration ? q.credit : null,
      debit: proration ? q.debit : null,
      usageCharge: immediate ? q.usageTotal : null,
      nextPrice: q.nextRenewalAmount !== null && interval && interval !== 'ONE_TIME' ? { amount: q.nextRenewalAmount, interval } : null,
      nextRenewalAt: q.nextRenewalAt,
    }),
  };
}

/** What a change or cancellation would bill if confirmed now: the same figures it issues. */
export async function previewChange(deps: Deps, ctx: OperationContext, id: string, input: PreviewChangeInput): Promise<ChangePreview> {
  const applyAt = input.applyAt ?? 'IMMEDIATE';
  if ((input.offeringId === undefined) === (input.cancel !== true)) {
    throw new AppError('VALIDATION_FAILED', 'Send either offeringId (a plan change) or cancel: true (a cancellation).', { field: 'body.offeringId' });
  }
  const sub = await findSubscription(deps.db, ctx, id);
  if (!sub) throw notFound('subscription', id);
  if (input.offeringId !== undefined || applyAt === 'PERIOD_END') checkNothingPending(sub);
  const now = await timeOf(deps, ctx, sub.testClockId);
  const target = input.offeringId !== undefined ? { action: 'change' as const, offeringId: input.offeringId } : { action: 'cancel' as const };
  const preview = presentQuote(await quoteChange(deps, ctx, sub, target, applyAt, now));
  if (input.cancel && input.reason) preview.retentionOffer = await offerForSubscription(deps, ctx, sub, input.reason);
  return preview;
}
