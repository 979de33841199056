import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { retryScheduleProblem, type BillingSettings, type UpdateBillingSettingsBody } from './billing-settings.js';
import { AppError } from '../../lib/errors.js';
import { billingSettingsOf, saveBillingSettings } from './billing-settings.repository.js';

export async function updateBillingSettings(deps: Deps, ctx: OperationContext, input: Static<typeof UpdateBillingSettingsBody>): Promise<BillingSettings> {
  const problem = input.paymentRetryDays ? retryScheduleProblem(input.paymentRetryDays) : null;
  if (problem) throw new AppError('VALIDATION_FAILED', problem, { field: 'body.paymentRetryDays' });
  return inTransaction(deps.db, async (trx) => {
    const current = await billingSettingsOf(trx, ctx);
    const next: BillingSettings = {
      invoiceGraceMs: input.invoiceGraceSeconds === undefined ? current.invoiceGraceMs : input.invoiceGraceSeconds * 1000,
      invoicePrefix: input.invoicePrefix ?? current.invoicePrefix,
      creditNotePrefix: input.creditNotePrefix ?? current.creditNotePrefix,
      supportUrl: input.supportUrl === undefined ? current.supportUrl : input.supportUrl,
      collectionMethod: input.collectionMethod ?? current.collectionMethod,
      daysUntilDue: input.daysUntilDue ?? current.daysUntilDue,
      paymentRetryDays: input.paymentRetryDays ?? current.paymentRetryDays,
      pastDueGraceDays: input.pastDueGraceDays ?? current.pastDueGraceDays,
      pastDueFinalAction: input.pastDueFinalAction ?? current.pastDueFinalAction,
      updatedAt: deps.clock.now(),
    };
    await saveBillingSettings(trx, ctx, next);
    await recordAudit(trx, deps, ctx, { eventType: 'billing_settings.updated', targetType: 'billing_settings', payload: { changed: Object.keys(input) } });
    return next;
  });
}
