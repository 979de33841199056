import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudits } from '../audit/audit-event.repository.js';
import { emitWebhookEvents } from '../outbound-webhooks/emit-webhook-events.js';
import { billingSettingsOf } from './billing-settings.repository.js';
import { finalizeDrafts, invoiceFinalizedAudit, paidAtFinalization } from './finalize-invoice.js';
import type { Invoice } from './invoice.js';
import { insertInvoice } from './invoice.repository.js';
import { draftInvoice, invoiceCreatedAudit, invoiceEvent, type DraftInput } from './issue-invoice.js';

/**
 * Issues an invoice finalized at once (numbered, frozen; the customer's balance pays it first),
 * with its audit events (created, finalized, paid when the balance paid it all) and webhook
 * messages, in the caller's transaction: a plan change's invoice, a purchase of credits. Its rated
 * lines stay as given (no re-rating, no late-usage adjustments). 409 with `conflict` when its
 * cycle key was taken already.
 */
export async function issueFinalizedInvoice(txDeps: Deps, ctx: OperationContext, input: DraftInput, conflict: string): Promise<Invoice> {
  const settings = await billingSettingsOf(txDeps.db, ctx);
  const draft = draftInvoice(txDeps, settings, input);
  const [invoice] = await finalizeDrafts(txDeps, ctx, [draft], input.at, settings, { rerate: false, adjust: false });
  if (!(await insertInvoice(txDeps.db, ctx, invoice!))) throw new AppError('CONFLICT', conflict);
  const paid = paidAtFinalization(txDeps, ctx, invoice!);
  await recordAudits(txDeps.db, txDeps, [
    { origin: ctx, event: invoiceCreatedAudit(draft) },
    { origin: ctx, event: invoiceFinalizedAudit(invoice!) },
    ...(paid ? [{ origin: ctx, event: paid.audit }] : []),
  ]);
  await emitWebhookEvents(txDeps.db, txDeps, [
    { origin: ctx, event: invoiceEvent(txDeps, ctx, 'invoice.created', draft) },
    { origin: ctx, event: invoiceEvent(txDeps, ctx, 'invoice.finalized', invoice!, draft) },
    ...(paid ? [{ origin: ctx, event: paid.message }] : []),
  ]);
  return invoice!;
}
