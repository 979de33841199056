import { Decimal, fitsMinorUnit, isDecimalString, roundToMinorUnit } from '@tollgate/pricing';
import type { ErrorDetail } from '../../lib/errors.js';
import type { Payment } from '../payments/payment.js';
import { refundCounts, type Refund, type RefundMethod } from '../payments/refund.js';
import type { Invoice } from './invoice.js';

/** What a credit note on a paid invoice gives back, and how (credit-note.ts: the request's `refund`). */
export interface RefundChoice {
  method: RefundMethod;
  /** Default: the credit note's total. */
  amount?: string;
}

/** One refund row to write: the payment it is taken from (null: none), and how much. */
export interface RefundPart {
  paymentId: string | null;
  amount: string;
}

const AMOUNT_FIELD = 'body.refund.amount';

/**
 * Pure: what is left to refund of a payment, its amount less the larger of what it shows refunded
 * (amountRefunded: ours, and Stripe's own count from charge.refunded, which also sees refunds made
 * in Stripe's dashboard) and what our refunds of it took, pending ones included (their answer may
 * be on its way). The larger, not the sum: both count our own refunds once they succeed.
 */
export function refundableOfPayment(
  payment: Pick<Payment, 'id' | 'amount' | 'amountRefunded'>,
  refunds: readonly Pick<Refund, 'paymentId' | 'amount' | 'status'>[],
): Decimal {
  const ours = refunds.filter((r) => r.paymentId === payment.id && refundCounts(r)).reduce((acc, r) => acc.plus(r.amount), new Decimal(0));
  return Decimal.max(new Decimal(payment.amount).minus(Decimal.max(ours, payment.amountRefunded)), 0);
}

/** Which payments a method refunds: through the provider, Stripe's; out of band, the others (Stripe's own refunds come back through its webhook). */
const takesFrom = (method: RefundMethod, p: Payment): boolean =>
  p.status === 'succeeded' &&
  (method === 'provider' ? p.provider === 'stripe' && p.providerReference !== null : method === 'out_of_band' && p.provider !== 'stripe');

/**
 * Pure: how a credit note of `noteTotal` on `invoice` gives `choice.amount` (default: all of it)
 * back, or the problems, each naming its field. Never more than the credit note, nor than what was
 * paid on the invoice and not yet given back (its amountPaid less every refund not failed), nor,
 * through the provider, than its provider payments have left. Taken from the newest payment first.
 */
export function planRefund(
  invoice: Pick<Invoice, 'id' | 'status' | 'currency' | 'amountPaid'>,
  payments: readonly Payment[],
  earlier: readonly Pick<Refund, 'paymentId' | 'amount' | 'status'>[],
  noteTotal: string,
  choice: RefundChoice,
): { problems: ErrorDetail[]; parts: RefundPart[] } {
  const problem = (field: string, message: string): { problems: ErrorDetail[]; parts: RefundPart[] } => ({
    problems: [{ code: 'VALIDATION_FAILED', field, message }],
    parts: [],
  });
  const { currency } = invoice;
  if (invoice.status !== 'paid') {
    return problem(
      'body.refund',
      `Invoice '${invoice.id}' is ${invoice.status}: only a paid invoice's credit note gives money back. On an invoice still open it reduces what is owed; leave refund out.`,
    );
  }
  const asked = choice.amount ?? noteTotal;
  if (!isDecimalString(asked) || new Decimal(asked).lte(0)) return problem(AMOUNT_FIELD, 'A refund is more than 0.');
  if (!fitsMinorUnit(asked, currency)) return problem(AMOUNT_FIELD, `${currency} amounts have at most its minor digits; '${asked}' has more.`);
  const amount = new Decimal(asked);
  const money = (d: Decimal) => `${roundToMinorUnit(d, currency)} ${currency}`;
  if (amount.gt(noteTotal)) return problem(AMOUNT_FIELD, `The refund (${money(amount)}) is more than the credit note (${money(new Decimal(noteTotal))}).`);

  const given = earlier.filter(refundCounts).reduce((acc, r) => acc.plus(r.amount), new Decimal(0));
  const paidLeft = Decimal.max(new Decimal(invoice.amountPaid).minus(given), 0);
  if (amount.gt(paidLeft)) {
    return problem(AMOUNT_FIELD, `The refund (${money(amount)}) is more than was paid on invoice '${invoice.id}' and not yet given back (${money(paidLeft)}).`);
  }
  if (choice.method === 'customer_balance') return { problems: [], parts: [{ paymentId: null, amount: roundToMinorUnit(amount, currency) }] };

  // Newest first: a later payment is the one a refund most likely answers (and the card most likely still valid).
  const sources = payments.filter((p) => takesFrom(choice.method, p)).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  const parts: RefundPart[] = [];
  let rest = amount;
  for (const p of sources) {
    if (rest.lte(0)) break;
    const take = Decimal.min(refundableOfPayment(p, earlier), rest);
    if (take.lte(0)) continue;
    parts.push({ paymentId: p.id, amount: roundToMinorUnit(take, currency) });
    rest = rest.minus(take);
  }
  if (rest.gt(0) && choice.method === 'provider') {
    const through = amount.minus(rest);
    return problem(
      AMOUNT_FIELD,
      `The refund (${money(amount)}) is more than invoice '${invoice.id}'s Stripe payments have left to refund (${money(through)}); what was paid outside Stripe is refunded with method out_of_band.`,
    );
  }
  // Out of band beyond the recorded payments: an invoice marked paid without them.
  if (rest.gt(0)) parts.push({ paymentId: null, amount: roundToMinorUnit(rest, currency) });
  return { problems: [], parts };
}

/**
 * Pure: a payment's amountRefunded after our refunds of it or Stripe's count (charge.refunded):
 * the largest of what it shows, what our succeeded refunds of it add up to, and what Stripe says;
 * so it only ever grows, whatever order the answers and the webhooks arrive in.
 */
export function refundedAfter(
  payment: Pick<Payment, 'id' | 'amountRefunded' | 'currency' | 'provider'>,
  refunds: readonly Pick<Refund, 'paymentId' | 'amount' | 'status'>[],
  reported: string | null = null,
): string {
  const ours = refunds.filter((r) => r.paymentId === payment.id && r.status === 'succeeded').reduce((acc, r) => acc.plus(r.amount), new Decimal(0));
  let refunded = Decimal.max(payment.amountRefunded, ours);
  if (reported !== null) refunded = Decimal.max(refunded, reported);
  return roundToMinorUnit(refunded, payment.currency);
}
