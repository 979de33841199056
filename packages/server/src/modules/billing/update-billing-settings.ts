import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { BillingSettings, UpdateBillingSettingsBody } from './billing-settings.js';
import { billingSettingsOf, saveBillingSettings } from './billing-settings.repository.js';

export async function updateBillingSettings(deps: Deps, ctx: OperationContext, input: Static<typeof UpdateBillingSettingsBody>): Promise<BillingSettings> {
  return inTransaction(deps.db, async (trx) => {
    const current = await billingSettingsOf(trx, ctx);
    const next: BillingSettings = {
      invoiceGraceMs: input.invoiceGraceSeconds === undefined ? current.invoiceGraceMs : input.invoiceGraceSeconds * 1000,
      invoicePrefix: input.invoicePrefix ?? current.invoicePrefix,
      creditNotePrefix: input.creditNotePrefix ?? current.creditNotePrefix,
      supportUrl: input.supportUrl === undefined ? current.supportUrl : input.supportUrl,
      collectionMethod: input.collectionMethod ?? current.collectionMethod,
      daysUntilDue: input.daysUntilDue ?? current.daysUntilDue,
      updatedAt: deps.clock.now(),
    };
    await saveBillingSettings(trx, ctx, next);
    await recordAudit(trx, deps, ctx, { eventType: 'billing_settings.updated', targetType: 'billing_settings', payload: { changed: Object.keys(input) } });
    return next;
  });
}
