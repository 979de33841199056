import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { CreditInvoicing, CreditPurchase } from '../credits/credit-invoicing.js';
import { issueFinalizedInvoice } from './issue-finalized-invoice.js';
import { NO_UNIT } from './rate-period.js';

/**
 * A purchase of prepaid credits (issue 41): one credit_purchase line for its cost, on an invoice
 * of its own (billing reason credit_purchase, the subscription the credits are limited to, if
 * any), finalized at once with its audit events and webhook messages, in the caller's
 * transaction. It is collected as any invoice is: charged automatically by the payment provider
 * when one is connected, else paid by recorded payments or marked paid; the customer's balance
 * pays it first. Its grant becomes active when it is paid (activatePurchasedGrants).
 */
async function invoicePurchase(txDeps: Deps, ctx: OperationContext, p: CreditPurchase): Promise<{ invoiceId: string; paid: boolean }> {
  const invoice = await issueFinalizedInvoice(
    txDeps,
    ctx,
    {
      sub: { id: p.subscriptionId, customerId: p.customerId, currency: p.currency, collectionMethod: null, testClockId: p.testClockId },
      cycleKey: `credit_purchase:${p.grantId}`,
      billingReason: 'credit_purchase',
      period: { start: p.at, end: p.at },
      priceVersionId: null,
      lines: [
        {
          ...NO_UNIT,
          type: 'credit_purchase',
          description: `Prepaid credits: ${p.amount} ${p.currency}`,
          amount: p.cost,
          creditGrantId: p.grantId,
          periodStart: p.at,
          periodEnd: p.at,
          adjustsInvoiceId: null,
          ratedTotal: null,
        },
      ],
      at: p.at,
    },
    `Credit grant '${p.grantId}' has an invoice already.`,
  );
  return { invoiceId: invoice.id, paid: invoice.status === 'paid' };
}

export const creditInvoicing: CreditInvoicing = { invoicePurchase };
