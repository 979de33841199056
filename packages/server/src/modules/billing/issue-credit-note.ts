import { Decimal, minorUnitDigits, roundToMinorUnit } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound, type ErrorDetail } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent, resourceEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { documentNumber } from './billing-settings.js';
import { billingSettingsOf, takeDocumentNumber } from './billing-settings.repository.js';
import { presentCreditNote, type CreateCreditNoteInput, type CreditNote } from './credit-note.js';
import { insertCreditNote } from './credit-note.repository.js';
import type { Invoice } from './invoice.js';
import { findInvoice, saveInvoice } from './invoice.repository.js';
import { checkRefund, recordRefunds } from './refund-credit-note.js';

const CREDITABLE = new Set(['finalized', 'paid', 'uncollectible']);

/**
 * Pure: the problems of a credit note against its invoice, each naming its field. Amounts must be
 * above zero with at most the currency's minor digits; a line that names an invoice line credits
 * at most that line; the total at most what is left of the invoice (its total less credit notes).
 */
export function creditNoteProblems(
  invoice: Pick<Invoice, 'id' | 'status' | 'total' | 'creditedTotal' | 'currency' | 'lines'>,
  input: Pick<CreateCreditNoteInput, 'lines'>,
): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const bad = (field: string, message: string) => problems.push({ code: 'VALIDATION_FAILED', field, message });
  if (!CREDITABLE.has(invoice.status)) {
    bad('body.invoiceId', `Invoice '${invoice.id}' is ${invoice.status}: only a finalized, paid or uncollectible invoice can be credited.`);
    return problems;
  }
  const digits = minorUnitDigits(invoice.currency);
  let total = new Decimal(0);
  input.lines.forEach((l, i) => {
    const amount = new Decimal(l.amount);
    if (amount.lte(0)) bad(`body.lines.${i}.amount`, 'A credit-note line is above zero.');
    else if (amount.decimalPlaces() > digits) bad(`body.lines.${i}.amount`, `${invoice.currency} has ${digits} minor digits; ${l.amount} has more.`);
    if (l.invoiceLineIndex !== undefined) {
      const line = invoice.lines[l.invoiceLineIndex];
      if (!line) bad(`body.lines.${i}.invoiceLineIndex`, `Invoice '${invoice.id}' has ${invoice.lines.length} lines; there is no line ${l.invoiceLineIndex}.`);
      else if (amount.gt(line.amount))
        bad(`body.lines.${i}.amount`, `Line ${l.invoiceLineIndex} of the invoice is ${line.amount}; a credit for it cannot be more.`);
    }
    total = total.plus(amount);
  });
  const left = new Decimal(invoice.total).minus(invoice.creditedTotal);
  if (problems.length === 0 && total.gt(left)) {
    bad(
      'body.lines',
      `The credit note totals ${roundToMinorUnit(total, invoice.currency)}, more than the ${roundToMinorUnit(left, invoice.currency)} left to credit on invoice '${invoice.id}'.`,
    );
  }
  return problems;
}

/**
 * Issues a credit note against an invoice, numbered in the tenant's credit-note sequence, and
 * adds it to the invoice's credited total, in one transaction with its audit event and webhook
 * message. Plan changes
 * (immediate downgrades and cancellations) issue theirs through this too. With `refund` (a paid
 * invoice), the money given back is recorded in the same transaction (refund-credit-note.ts); a
 * refund through the provider is only written pending here: the caller sends it after the commit
 * (sendPendingRefunds), never inside this transaction.
 */
export async function issueCreditNote(deps: Deps, ctx: OperationContext, input: CreateCreditNoteInput): Promise<CreditNote> {
  return inTransaction(deps.db, async (trx) => {
    const invoice = await findInvoice(trx, ctx, input.invoiceId, { lock: deps.dialect === 'postgres' });
    if (!invoice) throw notFound('invoice', input.invoiceId);
    const problems = creditNoteProblems(invoice, input);
    if (problems.length > 0)
      throw new AppError(problems[0]!.field === 'body.invoiceId' ? 'CONFLICT' : 'VALIDATION_FAILED', problems[0]!.message, { details: problems });
    const txDeps: Deps = { ...deps, db: trx };
    const noteTotal = roundToMinorUnit(
      input.lines.reduce((acc, l) => acc.plus(roundToMinorUnit(l.amount, invoice.currency)), new Decimal(0)),
      invoice.currency,
    );
    // Checked before anything is written (a 400 takes no number of the sequence).
    const refundParts = input.refund ? await checkRefund(txDeps, ctx, invoice, noteTotal, input.refund) : [];
    const settings = await billingSettingsOf(trx, ctx);
    const n = await takeDocumentNumber(trx, ctx, 'credit_note');
    const lines = input.lines.map((l) => ({
      description: l.description,
      amount: roundToMinorUnit(l.amount, invoice.currency),
      invoiceLineIndex: l.invoiceLineIndex ?? null,
    }));
    const total = roundToMinorUnit(
      lines.reduce((acc, l) => acc.plus(l.amount), new Decimal(0)),
      invoice.currency,
    );
    const now = deps.clock.now();
    const note: CreditNote = {
      id: deps.ids.next('creditNote'),
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      subscriptionId: invoice.subscriptionId,
      // The real year, as for invoices (finalize-invoice.ts): the sequence is the workspace's, not the clock's.
      number: documentNumber(settings.creditNotePrefix, now, n),
      status: 'issued',
      reason: input.reason,
      memo: input.memo ?? null,
      currency: invoice.currency,
      lines,
      total,
      metadata: input.metadata ?? {},
      voidedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertCreditNote(trx, ctx, note);
    await saveInvoice(trx, ctx, {
      ...invoice,
      creditedTotal: roundToMinorUnit(new Decimal(invoice.creditedTotal).plus(total), invoice.currency),
      updatedAt: now,
    });
    await recordAudit(trx, deps, ctx, {
      eventType: 'credit_note.created',
      targetType: 'credit_note',
      targetId: note.id,
      payload: {
        number: note.number,
        invoiceId: invoice.id,
        invoiceNumber: invoice.number,
        total,
        currency: note.currency,
        reason: note.reason,
        ...(input.refund ? { refund: { method: input.refund.method, amount: roundToMinorUnit(input.refund.amount ?? total, invoice.currency) } } : {}),
      },
    });
    await emitWebhookEvent(
      trx,
      deps,
      ctx,
      resourceEvent('credit_note.created', note.subscriptionId, presentCreditNote, note, undefined, { invoiceNumber: invoice.number }),
    );
    // After the credit note's event: a refund recorded now (out of band) is its consequence. Provider refunds are sent after the commit.
    if (input.refund) await recordRefunds(txDeps, ctx, invoice, note, input.refund, refundParts);
    return note;
  });
}
