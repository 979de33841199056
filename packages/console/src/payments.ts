/**
 * The rules of the console's payment screens, pure so they are tested with tables of cases: which
 * invoices take a payment, the day a payment arrived as the API's paidAt, a provider's name, the
 * webhook address to give Stripe, and what a refund may give back. Amounts stay decimal text
 * (Decimal from @tollgate/pricing compares them), never a JS number.
 */
import { Decimal, isDecimalString, roundToMinorUnit } from '@tollgate/pricing';
import type { ApiProblem } from './errors.js';
import { formatAmount } from './format.js';

/** Issued and not settled (the server's rule: 409 for any other status). */
const PAYABLE = new Set(['finalized', 'uncollectible']);

/** An invoice takes a payment when it is finalized or uncollectible and something is still owed. */
export function canRecordPayment(invoice: { status: string; amountRemaining: string }): boolean {
  return PAYABLE.has(invoice.status) && isDecimalString(invoice.amountRemaining) && new Decimal(invoice.amountRemaining).gt(0);
}

/** The UTC day of an instant, as a date input holds it: "2026-01-15". The console words every time in UTC. */
export const utcDayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export interface PaymentForm {
  amount: string;
  /** The date input's value: "2026-01-10", or "" when cleared. */
  paidOn: string;
  reference: string;
}

export interface RecordPaymentBody {
  amount: string;
  paidAt?: string;
  reference?: string;
}

/**
 * The request's body from the form. A payment that arrived today (or with no date) sends no
 * paidAt, so the server takes its own now (the invoice's test clock's, if it has one); another day
 * is its start in UTC. Text that is not a day is sent as typed, so the server's 400 names the
 * field. An empty reference is left out; the amount is sent as typed, for the server to judge.
 */
export function recordPaymentBody(form: PaymentForm, today: string): RecordPaymentBody {
  const body: RecordPaymentBody = { amount: form.amount.trim() };
  const day = form.paidOn.trim();
  if (day !== '' && day !== today) body.paidAt = /^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00.000Z` : day;
  const reference = form.reference.trim();
  if (reference !== '') body.reference = reference;
  return body;
}

/** What a recorded payment left, for the status line: "Recorded $20.00. Still owed: $29.00." or "… The invoice is paid." */
export function recordedText(amount: string, invoice: { status: string; currency: string; amountRemaining: string }): string {
  const recorded = `Recorded ${formatAmount(amount, invoice.currency)}.`;
  if (invoice.status === 'paid') return `${recorded} The invoice is paid.`;
  return `${recorded} Still owed: ${formatAmount(invoice.amountRemaining, invoice.currency)}.`;
}

const PROVIDERS: Record<string, string> = { manual: 'Recorded by hand', stripe: 'Stripe' };

/** Who moved the money, in words; a provider this console does not know yet is shown as sent. */
export const providerText = (provider: string): string => PROVIDERS[provider] ?? provider;

/**
 * The address to give Stripe: the API answers a path on this server, to be prefixed with the
 * address Stripe reaches it at, which for an operator at the console is usually the page's own.
 */
export function webhookAddress(origin: string, path: string): string {
  return /^https?:\/\//.test(path) ? path : `${origin.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
}

/**
 * Retry payment is offered while the server would take it: a finalized invoice that owes something,
 * with Stripe connected and no attempt in flight (paymentStatus processing). One waiting for the
 * buyer may be retried: the server withdraws its page first.
 */
export function canRetryPayment(invoice: { status: string; amountRemaining: string; paymentStatus?: string }, stripeConnected: boolean): boolean {
  return stripeConnected && invoice.status === 'finalized' && invoice.paymentStatus !== 'processing' && canRecordPayment(invoice);
}

const PAYMENT_STATUSES: Record<string, string> = {
  unpaid: 'Unpaid',
  processing: 'Processing',
  requires_action: 'Waiting for the buyer to authenticate',
  failed: 'Failed',
  partially_paid: 'Partly paid',
  paid: 'Paid',
  void: 'Void',
};

/** An invoice's paymentStatus in words; one this console does not know is shown as sent. */
export const paymentStatusText = (status: string): string => PAYMENT_STATUSES[status] ?? status;

const TRIGGERS: Record<string, string> = {
  automatic: 'at finalization',
  retry: 'scheduled retry',
  card_updated: 'new card',
  manual_retry: 'operator’s retry',
  customer: 'by the customer',
  plan_change: 'plan change',
};

/** An attempt's number and why it was made: "#2, operator’s retry"; null for a manual payment. */
export function attemptText(p: { attempt: number | null; trigger: string | null }): string | null {
  if (p.attempt === null) return null;
  return p.trigger ? `#${p.attempt}, ${TRIGGERS[p.trigger] ?? p.trigger}` : `#${p.attempt}`;
}

/** Why an attempt failed: "insufficient_funds: Your card has insufficient funds." (the code alone without a message). */
export function failureText(code: string | null, message: string | null): string | null {
  if (code === null) return null;
  return message ? `${code}: ${message}` : code;
}

/** What an attempt made now came to, for the status line (a link to the buyer's page is shown beside it). */
export function attemptOutcomeText(p: { status: string; amount: string; currency: string; failureCode: string | null; failureMessage: string | null }): string {
  switch (p.status) {
    case 'succeeded':
      return `Paid: ${formatAmount(p.amount, p.currency)} charged. The invoice is paid.`;
    case 'failed':
      return `The payment failed: ${p.failureMessage ?? 'Stripe gave no message.'} (${p.failureCode ?? 'no code'})`;
    case 'requires_action':
      return 'The buyer’s bank wants them to authenticate this payment: send them the link.';
    default:
      return 'Stripe has not answered yet: the payment settles when it does, and is never charged twice.';
  }
}

export interface Refund {
  id: string;
  method: string;
  status: string;
  amount: string;
  currency: string;
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: string;
}

/** How a credit note gives money back (the API's refund.method), in words. */
export const REFUND_METHODS: Record<string, string> = {
  provider: 'Through Stripe',
  out_of_band: 'Returned outside Tollgate',
  customer_balance: 'To the customer’s balance',
};

/**
 * What the Refund form may give back, as the API judges it: what was paid less every refund not
 * failed (a pending one may still succeed), and at most what is left to credit (the total less
 * credit notes), since the form's credit note is the refund. Never below zero; in minor units.
 */
export function refundableOf(
  invoice: { amountPaid: string; total: string; creditedTotal: string; currency: string },
  refunds: ReadonlyArray<{ amount: string; status: string }>,
): string {
  const given = refunds.filter((r) => r.status !== 'failed').reduce((acc, r) => acc.plus(r.amount), new Decimal(0));
  const left = Decimal.min(new Decimal(invoice.amountPaid).minus(given), new Decimal(invoice.total).minus(invoice.creditedTotal));
  return roundToMinorUnit(Decimal.max(left, 0), invoice.currency);
}

/** A credit note gives money back only on a paid invoice (else the API's 400 names body.refund), and only while some may still go back. */
export const canRefund = (invoice: { status: string }, refundable: string): boolean => invoice.status === 'paid' && new Decimal(refundable).gt(0);

/** The method the form starts with: through Stripe when Stripe took the newest payment, else returned outside Tollgate. */
export const defaultRefundMethod = (payments: ReadonlyArray<{ provider: string; status: string }>): string =>
  payments.filter((p) => p.status === 'succeeded').pop()?.provider === 'stripe' ? 'provider' : 'out_of_band';

/**
 * The request's body from the form's values: a credit note of one line for the amount, all of it
 * given back by the method chosen. The amount is sent as typed, for the server to judge; a reason
 * not chosen is left out, for the server to name.
 */
export function refundBody(v: Record<string, string>, invoiceId: string) {
  const amount = v['refund.amount'] ?? '';
  return { invoiceId, reason: v.reason, lines: [{ description: 'Refund', amount }], refund: { method: v['refund.method'], amount } };
}

/**
 * The form's one amount is the credit note's line and the refund: the API's errors on the line
 * (its format, more than is left to credit) are shown at the amount, once.
 */
export function refundProblem(problem: ApiProblem | null): ApiProblem | null {
  const field = 'body.refund.amount';
  const named = problem?.errors.some((e) => e.field === field);
  return problem && { ...problem, errors: problem.errors.flatMap((e) => (e.field?.startsWith('body.lines') ? (named ? [] : [{ ...e, field }]) : [e])) };
}

/** A refund as it stands: "Through Stripe: $10.00, failed (card_declined: …)." */
export function refundText(r: Refund): string {
  const failure = failureText(r.failureCode, r.failureMessage);
  return `${REFUND_METHODS[r.method] ?? r.method}: ${formatAmount(r.amount, r.currency)}, ${r.status}${failure ? ` (${failure})` : ''}.`;
}
