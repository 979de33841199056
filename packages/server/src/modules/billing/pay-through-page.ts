import { Decimal } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { PaymentProviderError } from '../payments/payment-provider.js';
import { findPaymentProvider } from '../payments/payment-provider-connection.repository.js';
import { listInvoicePayments } from '../payments/payment.repository.js';
import { stripeProviderOf } from '../payments/stripe-for.js';
import { applyChargeOutcome, collectInvoice, type Collection } from './collect-invoice.js';
import { amountRemaining, type Invoice } from './invoice.js';
import { findInvoice } from './invoice.repository.js';

/**
 * Paying an invoice through its payment page (hosted-invoice.ts): the buyer presses Pay and is
 * sent to a Stripe-hosted Checkout page for what is still owed. The page is an attempt like a
 * charge (collect-invoice.ts), trigger `payment_page`, with the same guarantees:
 * - a page still open is reused, never a second one made beside it, so the buyer cannot pay twice
 *   in two tabs;
 * - any newer attempt (a retry, a charge of a new card) expires the open page first;
 * - the page's outcome arrives as Stripe's checkout.session.completed or expired, or as its
 *   PaymentIntent's events, and the reconciliation reads a page whose answer was lost.
 */
export type PageOutcome =
  | { kind: 'redirect'; url: string; invoice: Invoice }
  /** Nothing to pay now (paid, void, uncollectible, or nothing owed): the page says which. */
  | { kind: 'settled'; invoice: Invoice }
  /** The environment has no Stripe connection: the buyer pays as the seller says (bank transfer…). */
  | { kind: 'no_provider'; invoice: Invoice }
  /** An attempt is in flight (its outcome comes first): try again in a moment. */
  | { kind: 'busy'; invoice: Invoice }
  /** Stripe did not answer: try again in a moment (nothing was paid twice: a resend asks for the same page). */
  | { kind: 'unavailable'; invoice: Invoice }
  /** Stripe refused to make the page (the seller's configuration): nothing the buyer can do. */
  | { kind: 'refused'; invoice: Invoice };

/**
 * The invoice's latest payment page, if it was left open, as Stripe has it now: still open (its
 * address, to go back to), or paid or expired meanwhile (applied here, so a buyer back from Stripe
 * before its webhook sees the invoice paid). One read of Stripe, only when such a page exists.
 */
export async function refreshPaymentPage(
  deps: Deps,
  c: Collection,
  origin: OperationContext,
  invoice: Invoice,
): Promise<{ invoice: Invoice; openUrl: string | null; unavailable?: true }> {
  if (invoice.status !== 'finalized' || invoice.latestAttemptStatus !== 'requires_action') return { invoice, openUrl: null };
  const payments = await listInvoicePayments(deps.db, origin, invoice.id);
  const last = payments.reduce<(typeof payments)[number] | null>((a, p) => (p.attempt !== null && (a === null || p.attempt > a.attempt!) ? p : a), null);
  if (last?.trigger !== 'payment_page' || last.status !== 'requires_action' || last.providerReference === null) return { invoice, openUrl: null };
  const connection = await findPaymentProvider(deps.db, origin, 'stripe');
  if (!connection) return { invoice, openUrl: null };
  try {
    const now = await stripeProviderOf(deps, connection).retrieveCharge(last.providerReference);
    if (now.status === 'requires_action' && now.actionUrl) return { invoice, openUrl: now.actionUrl };
    return { invoice: (await applyChargeOutcome(deps, c, origin, last.id, now, origin)).invoice, openUrl: null };
  } catch (err) {
    if (err instanceof PaymentProviderError && err.kind === 'unavailable') return { invoice, openUrl: null, unavailable: true };
    throw err;
  }
}

/** `origin` is the buyer, anonymous, in the invoice's tenant (the page's token named it); null: no such invoice. */
export async function payThroughPage(deps: Deps, c: Collection, origin: OperationContext, invoiceId: string): Promise<PageOutcome | null> {
  const found = await findInvoice(deps.db, origin, invoiceId);
  if (!found || found.status === 'draft') return null;
  // The page still open is the one to go back to (a reload, a second tab); one paid meanwhile is the payment.
  const latest = await refreshPaymentPage(deps, c, origin, found);
  if (latest.unavailable) return { kind: 'unavailable', invoice: found };
  if (latest.openUrl !== null) return { kind: 'redirect', url: latest.openUrl, invoice: latest.invoice };
  const invoice = latest.invoice;
  if (invoice.status !== 'finalized' || new Decimal(amountRemaining(invoice)).lte(0)) return { kind: 'settled', invoice };
  if (invoice.latestAttemptStatus === 'pending' || invoice.latestAttemptStatus === 'processing') return { kind: 'busy', invoice };
  if (!(await findPaymentProvider(deps.db, origin, 'stripe'))) return { kind: 'no_provider', invoice };

  const r = await collectInvoice(deps, c, origin, invoice.id, { trigger: 'payment_page', origin });
  if (r.payment?.status === 'requires_action' && r.payment.actionUrl) return { kind: 'redirect', url: r.payment.actionUrl, invoice: r.invoice };
  if (r.skipped === 'not_open' || r.skipped === 'nothing_owed' || r.invoice.status !== 'finalized') return { kind: 'settled', invoice: r.invoice };
  if (r.skipped === 'no_provider') return { kind: 'no_provider', invoice: r.invoice };
  if (r.payment?.status === 'failed') return { kind: 'refused', invoice: r.invoice };
  if (r.skipped === 'in_flight') return { kind: 'busy', invoice: r.invoice };
  return { kind: 'unavailable', invoice: r.invoice };
}
