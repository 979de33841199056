import { Decimal, roundToMinorUnit } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Db } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { outcomeAdvances, type Payment, type PaymentTrigger } from '../payments/payment.js';
import { PaymentProviderError, type ChargeRequest, type ChargeResult, type PaymentProvider } from '../payments/payment-provider.js';
import { findPaymentProvider } from '../payments/payment-provider-connection.repository.js';
import { findPayment, findPayments, insertPayments, listInvoicePayments, savePayment } from '../payments/payment.repository.js';
import { findProviderCustomer, type ProviderCustomerRow } from '../payments/provider-customer.repository.js';
import { ensureStripeCustomer } from '../payments/create-payment-method-session.js';
import { findCustomer } from '../customers/customer.repository.js';
import { hostedInvoiceUrl } from './hosted-invoice.js';
import { stripeProviderOf } from '../payments/stripe-for.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import { cancelSubscription } from '../subscriptions/cancel-subscription.js';
import { settledStatus, SUBSCRIPTIONS_CHANGED, withPendingUpdateApplied, type Subscription } from '../subscriptions/subscription.js';
import { changeEventType } from './renew-subscription.js';
import { subscriptionEvent } from '../subscriptions/subscription-event.js';
import { findSubscription, findSubscriptions, updateSubscriptionIfVersion } from '../subscriptions/subscription.repository.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { billingSettingsOf } from './billing-settings.repository.js';
import { nextDunningStep, pastDueAccessUntil } from './dunning.js';
import { amountDue, amountRemaining, type Invoice } from './invoice.js';
import { countFailingInvoices, findInvoice, findInvoices, saveInvoice } from './invoice.repository.js';
import { invoiceEvent } from './issue-invoice.js';
import { subscriptionBilling } from './open-subscription.js';
import { activatePurchasedGrants } from '../credits/grant-credits.js';

/**
 * Collecting an invoice through the connected provider (issue 39), in three steps so that a
 * crash, a timeout, a retry or two nodes at once still charge an invoice once:
 * 1. claim: in one transaction, with the invoice's row held, an attempt row is written (pending,
 *    numbered, unique per invoice) with the idempotency key and the payment method it will send;
 * 2. charge: the provider is called outside any transaction with that key;
 * 3. apply: the outcome is written in another transaction (applyChargeOutcome).
 * A crash after 1 leaves a pending attempt: the reconciliation (reconcile-payments.ts) sends the
 * same request again, and the provider answers with the first charge instead of making a second.
 * No new attempt is made while one is pending or processing.
 */

/** What collection needs beyond Deps: the revocation of keys when dunning cancels a subscription. */
export interface Collection {
  bound: BoundCredentials;
}

/** The key the provider receives for attempt `n` of an invoice: the same attempt never charges twice. */
export const attemptKey = (invoiceId: string, n: number) => `tollgate-${invoiceId}-attempt-${n}`;

export interface CollectOptions {
  trigger: PaymentTrigger;
  origin: OperationContext;
  /** Where the provider sends a buyer back after 3-D Secure; with it a charge that needs them gives the page's URL. */
  returnUrl?: string | null;
}

export interface CollectResult {
  invoice: Invoice;
  /** The attempt made; null when none was (nothing owed, one in flight, no provider). */
  payment: Payment | null;
  /** Why no attempt was made. */
  skipped?: 'no_provider' | 'not_open' | 'nothing_owed' | 'in_flight' | 'provider_unavailable';
}

/** The request an attempt sends, the same on every retry of it (the provider replays only identical requests). */
function chargeRequest(invoice: Invoice, payment: Payment, providerCustomerId: string, tenant: Tenant, returnUrl: string | null): ChargeRequest {
  return {
    customer: { id: providerCustomerId },
    amount: payment.amount,
    currency: payment.currency,
    idempotencyKey: payment.idempotencyKey!,
    paymentMethodId: payment.paymentMethodId,
    returnUrl,
    metadata: { invoiceId: invoice.id, attemptId: payment.id, workspaceId: tenant.workspaceId, environment: tenant.environment },
    description: `Invoice ${invoice.number ?? invoice.id}`,
  };
}

const noPaymentMethod = (payment: Payment): ChargeResult => ({
  providerReference: null,
  status: 'failed',
  amount: payment.amount,
  currency: payment.currency,
  failureCode: 'no_payment_method',
  failureMessage: 'The customer has no payment method on file: add one through a payment method session.',
  actionUrl: null,
});

/** Sends an attempt's request (again) and gives its outcome, or null when the provider did not answer. */
export async function sendAttempt(
  deps: Deps,
  provider: PaymentProvider,
  tenant: Tenant,
  invoice: Invoice,
  payment: Payment,
  returnUrl: string | null,
  /** The customer at the provider when the caller has read it already (undefined: read here). */
  providerCustomer?: ProviderCustomerRow | null,
): Promise<ChargeResult | null> {
  const page = payment.trigger === 'payment_page';
  if (payment.paymentMethodId === null && !page) return noPaymentMethod(payment);
  const known = providerCustomer !== undefined ? providerCustomer : await findProviderCustomer(deps.db, tenant, 'stripe', invoice.customerId);
  if (!known) return noPaymentMethod(payment);
  try {
    const request = chargeRequest(invoice, payment, known.providerCustomerId, tenant, returnUrl);
    if (!page) return await provider.charge(request);
    // The buyer comes back to the invoice's payment page either way; the address is derived, so a resend asks for the same page.
    const back = hostedInvoiceUrl(deps, tenant, invoice)!;
    return await provider.createPaymentPage({ ...request, successUrl: back, cancelUrl: back });
  } catch (err) {
    if (!(err instanceof PaymentProviderError)) throw err;
    if (err.kind === 'unavailable') {
      deps.log.warn({ err, invoiceId: invoice.id, paymentId: payment.id }, 'the provider did not answer a charge; the reconciliation sends it again');
      return null;
    }
    // Refused as asked (credentials, an amount it cannot carry): a failure the seller must look at.
    deps.log.error({ err, invoiceId: invoice.id, paymentId: payment.id }, 'the provider refused a charge');
    return { ...noPaymentMethod(payment), failureCode: err.providerCode ?? 'provider_rejected', failureMessage: err.message.slice(0, 500) };
  }
}

/**
 * The attempt a claim writes for an invoice read under its lock, and the invoice as the claim
 * leaves it; or why none is made. The attempt is numbered after the invoice's last, and its key
 * follows from the number, so a claim lost after its charge was sent sends the same key again.
 */
export function claimAttempt(
  deps: Pick<Deps, 'clock' | 'ids'>,
  invoice: Invoice,
  trigger: PaymentTrigger,
  paymentMethodId: string | null,
  now = deps.clock.now(),
): { invoice: Invoice; payment: Payment } | { skipped: 'not_open' | 'nothing_owed' | 'in_flight' } {
  if (invoice.status !== 'finalized') return { skipped: 'not_open' };
  const owed = amountRemaining(invoice);
  if (new Decimal(owed).lte(0)) return { skipped: 'nothing_owed' };
  if (attemptInFlight(invoice)) return { skipped: 'in_flight' };
  const invoiceId = invoice.id;
  const n = invoice.attemptCount + 1;
  const payment: Payment = {
    id: deps.ids.next('payment'),
    invoiceId,
    customerId: invoice.customerId,
    provider: 'stripe',
    status: 'pending',
    amount: owed,
    currency: invoice.currency,
    reference: null,
    paidAt: null,
    attempt: n,
    idempotencyKey: attemptKey(invoiceId, n),
    providerReference: null,
    paymentMethodId,
    failureCode: null,
    failureMessage: null,
    actionUrl: null,
    // The schedule's attempts after the first are its retries.
    trigger: trigger === 'automatic' && n > 1 ? 'retry' : trigger,
    amountRefunded: roundToMinorUnit('0', invoice.currency),
    createdAt: now,
    updatedAt: now,
  };
  const updated: Invoice = {
    ...invoice,
    attemptCount: n,
    nextPaymentAttemptAt: null,
    latestAttemptStatus: 'pending',
    paymentActionUrl: null,
    updatedAt: now,
  };
  return { invoice: updated, payment };
}

/**
 * Charges what an open invoice still owes (see the module comment). The payment method is the one
 * on file (read from the provider when we have not seen one yet), fixed on the attempt.
 */
export async function collectInvoice(deps: Deps, c: Collection, tenant: Tenant, invoiceId: string, opts: CollectOptions): Promise<CollectResult> {
  const connection = await findPaymentProvider(deps.db, tenant, 'stripe');
  const before = await findInvoice(deps.db, tenant, invoiceId);
  if (!before) throw new Error(`invoice ${invoiceId} vanished`);
  if (!connection) return { invoice: await unschedule(deps, tenant, before), payment: null, skipped: 'no_provider' };
  const provider = stripeProviderOf(deps, connection);

  // A page where the buyer could still authenticate an earlier attempt is withdrawn first: two
  // attempts must never both succeed. One the buyer completed meanwhile is the payment.
  const superseded = await withdrawWaitingAttempts(deps, c, provider, tenant, before, opts.origin);
  if (superseded === 'paid' || superseded === 'unavailable') {
    const now = (await findInvoice(deps.db, tenant, invoiceId))!;
    return { invoice: now, payment: null, skipped: superseded === 'paid' ? 'not_open' : 'provider_unavailable' };
  }

  let paymentMethodId: string | null = null;
  try {
    if (opts.trigger === 'payment_page') {
      // The buyer gives a card on the page: no method is fixed, but the page needs a Stripe customer.
      const customer = await findCustomer(deps.db, tenant, before.customerId);
      if (customer) await ensureStripeCustomer(deps, tenant, provider, customer);
    } else {
      const known = await findProviderCustomer(deps.db, tenant, 'stripe', before.customerId);
      paymentMethodId = known?.paymentMethod?.id ?? null;
      if (known && paymentMethodId === null) paymentMethodId = (await provider.defaultPaymentMethod({ id: known.providerCustomerId }))?.id ?? null;
    }
  } catch (err) {
    if (!(err instanceof PaymentProviderError) || err.kind !== 'unavailable') throw err;
    return { invoice: before, payment: null, skipped: 'provider_unavailable' };
  }

  const claimed = await inTransaction(deps.db, async (trx): Promise<CollectResult> => {
    const invoice = await findInvoice(trx, tenant, invoiceId, { lock: deps.dialect === 'postgres' });
    if (!invoice) throw new Error(`invoice ${invoiceId} vanished`);
    const claim = claimAttempt(deps, invoice, opts.trigger, paymentMethodId);
    if ('skipped' in claim) {
      const kept = claim.skipped === 'in_flight' ? invoice : await unschedule({ ...deps, db: trx }, tenant, invoice);
      return { invoice: kept, payment: null, skipped: claim.skipped };
    }
    await insertPayments(trx, tenant, [claim.payment]);
    await saveInvoice(trx, tenant, claim.invoice);
    return claim;
  });
  if (!claimed.payment) return claimed;

  const result = await sendAttempt(deps, provider, tenant, claimed.invoice, claimed.payment, opts.returnUrl ?? null);
  if (result === null) return claimed;
  return applyChargeOutcome(deps, c, tenant, claimed.payment.id, result, opts.origin);
}

/**
 * Cancels, at the provider, the invoice's attempts still waiting for the buyer (3-D Secure): each
 * is then failed as `canceled` (superseded; the invoice's state is the next attempt's to set), or,
 * when the buyer completed it first, applied as the payment it is.
 */
async function withdrawWaitingAttempts(
  deps: Deps,
  c: Collection,
  provider: PaymentProvider,
  tenant: Tenant,
  invoice: Invoice,
  origin: OperationContext,
): Promise<'none' | 'withdrawn' | 'paid' | 'unavailable'> {
  // Any earlier attempt may still wait for the buyer, not only the latest (a later one may have failed off-session).
  if (invoice.attemptCount === 0) return 'none';
  const waiting = (await listInvoicePayments(deps.db, tenant, invoice.id)).filter((p) => p.status === 'requires_action' && p.providerReference !== null);
  let outcome: 'none' | 'withdrawn' | 'paid' = 'none';
  for (const p of waiting) {
    let result: ChargeResult;
    try {
      result = await provider.cancelCharge(p.providerReference!);
    } catch (err) {
      if (err instanceof PaymentProviderError && err.kind === 'unavailable') return 'unavailable';
      throw err;
    }
    if (result.status === 'succeeded') {
      await applyChargeOutcome(deps, c, tenant, p.id, result, origin);
      outcome = 'paid';
    } else {
      await savePayment(deps.db, tenant, {
        ...p,
        status: 'failed',
        failureCode: 'canceled',
        failureMessage: 'Withdrawn: a newer attempt replaced it.',
        actionUrl: null,
        updatedAt: deps.clock.now(),
      });
      if (outcome === 'none') outcome = 'withdrawn';
    }
  }
  return outcome;
}

/** Nothing more to collect: the schedule is cleared so the job stops listing it. */
async function unschedule(deps: Deps, tenant: Tenant, invoice: Invoice): Promise<Invoice> {
  if (invoice.nextPaymentAttemptAt === null) return invoice;
  const updated = { ...invoice, nextPaymentAttemptAt: null, updatedAt: deps.clock.now() };
  await saveInvoice(deps.db, tenant, updated);
  return updated;
}

/** What an outcome leaves to do after its transaction: the workspace's final rule may cancel the subscription. */
type FollowUp = { cancel: { subscriptionId: string; invoice: Invoice } } | null;

/**
 * Writes a provider's outcome for an attempt, whoever brings it (the charge's answer, a webhook,
 * the reconciliation), in any order: an outcome that does not move the attempt forward
 * (payment.ts: outcomeAdvances) changes nothing, so a duplicate or a late one is harmless.
 * - succeeded: the amount is paid on the invoice; settled, it is paid (invoice.paid), and a past-due
 *   subscription with no other failing invoice is itself again (subscription.recovered).
 * - failed or requires_action (for the invoice's latest attempt): the error or the buyer's page is
 *   shown on the invoice, the subscription becomes past due (subscription.past_due), and the retry
 *   schedule sets the next attempt, or, after the last one, the workspace's final rule applies.
 */
export async function applyChargeOutcome(
  deps: Deps,
  c: Collection,
  tenant: Tenant,
  paymentId: string,
  result: ChargeResult,
  origin: OperationContext,
): Promise<CollectResult> {
  const [applied] = await applyChargeOutcomes(deps, c, tenant, [{ paymentId, result }], origin, (fn) => inTransaction(deps.db, fn));
  return applied!;
}

/** What outcomes leave to do after their transaction. */
interface AfterOutcomes {
  subscriptionChanged: boolean;
  followUps: Array<NonNullable<FollowUp>>;
  /** Each test clock's time, read once per transaction (it cannot move meanwhile). */
  clockTimes: Map<string | null, number>;
  /** A group's rows read at the start of its transaction, each handed out once (see readAhead). */
  read: ReadAhead | null;
  /** The workspace's billing settings, read once per transaction. */
  settings?: Awaited<ReturnType<typeof billingSettingsOf>>;
}

interface ReadAhead {
  payments: Map<string, Payment>;
  invoices: Map<string, Invoice>;
  subscriptions: Map<string, Subscription>;
}

/**
 * A group's attempts, their invoices (on PostgreSQL locked, in id order, before the attempts are
 * read again under the locks) and their subscriptions, in four statements instead of four per
 * outcome. Each row is handed out once: an outcome that writes a row leaves the next outcome of
 * the same row to read it again.
 */
async function readAhead(deps: Deps, trx: Db, tenant: Tenant, paymentIds: string[]): Promise<ReadAhead> {
  const postgres = deps.dialect === 'postgres';
  const seen = await findPayments(trx, tenant, paymentIds);
  const invoices = await findInvoices(trx, tenant, [...new Set(seen.map((p) => p.invoiceId))], postgres ? 'wait' : null);
  const payments = postgres ? await findPayments(trx, tenant, paymentIds) : seen;
  const subscriptionIds = invoices.map((i) => i.subscriptionId).filter((id): id is string => id !== null);
  const subscriptions = await findSubscriptions(trx, tenant, subscriptionIds);
  return {
    payments: new Map(payments.map((p) => [p.id, p])),
    invoices: new Map(invoices.map((i) => [i.id, i])),
    subscriptions: new Map(subscriptions.map((x) => [x.id, x])),
  };
}

/** A row read ahead, handed out once; undefined when it was not (or was already handed out). */
function take<T>(rows: Map<string, T> | undefined, id: string): T | undefined {
  const row = rows?.get(id);
  if (row !== undefined) rows!.delete(id);
  return row;
}

/**
 * Several outcomes of one tenant in one transaction (the billing run's group: one commit instead
 * of one per invoice), each as applyChargeOutcome applies it alone. When the group's transaction
 * fails (a subscription changed meanwhile), each outcome is applied again in its own, so one bad
 * outcome fails alone: it is left out of the answer, its attempt still pending for the webhook or
 * the reconciliation to bring again.
 */
export async function applyChargeOutcomes(
  deps: Deps,
  c: Collection,
  tenant: Tenant,
  outcomes: ReadonlyArray<{ paymentId: string; result: ChargeResult }>,
  origin: OperationContext,
  transact: <T>(fn: (trx: Db) => Promise<T>) => Promise<T>,
): Promise<CollectResult[]> {
  const applyAll = async (some: typeof outcomes) => {
    const after: AfterOutcomes = { subscriptionChanged: false, followUps: [], clockTimes: new Map(), read: null };
    const applied = await transact(async (trx) => {
      const out: CollectResult[] = [];
      if (some.length > 1)
        after.read = await readAhead(
          deps,
          trx,
          tenant,
          some.map((o) => o.paymentId),
        );
      for (const o of some) out.push(await applyOutcomeIn({ ...deps, db: trx }, tenant, o.paymentId, o.result, origin, after));
      return out;
    });
    if (after.subscriptionChanged) deps.caches.clear(SUBSCRIPTIONS_CHANGED);
    for (const f of after.followUps) await cancelAfterDunning(deps, c, tenant, origin, f);
    return applied;
  };
  if (outcomes.length <= 1) return applyAll(outcomes);
  try {
    return await applyAll(outcomes);
  } catch (err) {
    deps.log.warn({ err, outcomes: outcomes.length }, 'applying a group of payment outcomes failed; each is applied alone');
  }
  const applied: CollectResult[] = [];
  for (const o of outcomes) {
    try {
      applied.push(...(await applyAll([o])));
    } catch (err) {
      deps.log.warn({ err, paymentId: o.paymentId }, 'applying a payment outcome failed; the webhook or the reconciliation brings it again');
    }
  }
  return applied;
}

/** One outcome, inside the caller's transaction (deps.db). */
async function applyOutcomeIn(
  txDeps: Deps,
  tenant: Tenant,
  paymentId: string,
  result: ChargeResult,
  origin: OperationContext,
  after: AfterOutcomes,
): Promise<CollectResult> {
  const deps = txDeps;
  const trx = txDeps.db;
  const ahead = after.read?.payments.get(paymentId);
  let invoice: Invoice | null | undefined = ahead && take(after.read?.invoices, ahead.invoiceId);
  let payment: Payment;
  if (ahead && invoice) {
    // Read under the invoice's lock already (readAhead).
    after.read!.payments.delete(paymentId);
    payment = ahead;
  } else {
    const first = await findPayment(trx, tenant, paymentId);
    if (!first) throw new Error(`payment ${paymentId} vanished`);
    invoice = await findInvoice(trx, tenant, first.invoiceId, { lock: deps.dialect === 'postgres' });
    // Read again under the invoice's lock: everything that changes an attempt holds it. (SQLite's
    // transaction holds the one write lock from its start: nothing changed since the first read.)
    payment = deps.dialect === 'postgres' ? (await findPayment(trx, tenant, paymentId))! : first;
  }
  if (!invoice) throw new Error(`invoice ${payment.invoiceId} vanished`);
  const sameStatusNewReference = result.status === payment.status && result.providerReference !== null && payment.providerReference === null;
  if (!outcomeAdvances(payment.status, result.status) && !sameStatusNewReference) return { invoice, payment };

  const now = after.clockTimes.get(invoice.testClockId) ?? (await timeOf(txDeps, tenant, invoice.testClockId));
  after.clockTimes.set(invoice.testClockId, now);
  const real = deps.clock.now();
  const updatedPayment: Payment = {
    ...payment,
    status: result.status,
    providerReference: result.providerReference ?? payment.providerReference,
    failureCode: result.status === 'failed' || result.status === 'requires_action' ? result.failureCode : null,
    failureMessage: result.status === 'failed' || result.status === 'requires_action' ? result.failureMessage : null,
    actionUrl: result.status === 'requires_action' ? result.actionUrl : null,
    paidAt: result.status === 'succeeded' ? now : null,
    updatedAt: real,
  };
  await savePayment(trx, tenant, updatedPayment);
  const latest = payment.attempt === invoice.attemptCount;

  if (result.status === 'succeeded') {
    if (invoice.status !== 'finalized' && invoice.status !== 'uncollectible') {
      // Money arrived for an invoice that was voided or settled meanwhile: kept, never lost, for the operator to refund.
      deps.log.warn({ invoiceId: invoice.id, paymentId, status: invoice.status }, 'a payment succeeded for an invoice that is no longer open');
      return { invoice, payment: updatedPayment };
    }
    const amountPaid = roundToMinorUnit(new Decimal(invoice.amountPaid).plus(updatedPayment.amount), invoice.currency);
    const settled = new Decimal(amountPaid).gte(amountDue(invoice));
    const updated: Invoice = {
      ...invoice,
      amountPaid,
      latestAttemptStatus: latest ? 'succeeded' : invoice.latestAttemptStatus,
      lastPaymentError: null,
      paymentActionUrl: null,
      nextPaymentAttemptAt: settled ? null : invoice.nextPaymentAttemptAt,
      ...(settled ? { status: 'paid' as const, paidAt: now } : {}),
      updatedAt: real,
    };
    await saveInvoice(trx, tenant, updated);
    if (settled) {
      await recordAudit(trx, deps, origin, {
        eventType: 'invoice.paid',
        targetType: 'invoice',
        targetId: invoice.id,
        payload: { number: invoice.number, from: invoice.status, to: 'paid', total: invoice.total, amountPaid, paymentId, provider: payment.provider },
      });
      await emitWebhookEvent(trx, deps, origin, invoiceEvent(deps, tenant, 'invoice.paid', updated, invoice));
      // Credits bought with it are active now.
      await activatePurchasedGrants(txDeps, origin, updated.id, now);
      // A plan change that paid first takes effect now that its invoice is paid.
      const sub =
        updated.subscriptionId === null
          ? null
          : (take(after.read?.subscriptions, updated.subscriptionId) ?? (await findSubscription(trx, tenant, updated.subscriptionId)));
      const changed = sub ? await applyPendingUpdate(txDeps, tenant, origin, updated, sub) : sub;
      after.subscriptionChanged = (await recoverIfSettled(txDeps, tenant, origin, updated, changed ?? sub)) || changed !== null || after.subscriptionChanged;
    }
    return { invoice: updated, payment: updatedPayment };
  }

  if (result.status === 'processing' || !latest || invoice.status !== 'finalized') {
    const updated: Invoice = latest ? { ...invoice, latestAttemptStatus: result.status, updatedAt: real } : invoice;
    if (latest) await saveInvoice(trx, tenant, updated);
    return { invoice: updated, payment: updatedPayment };
  }
  if (payment.trigger === 'payment_page') {
    // A page opened (the buyer is paying) or left to expire is no failure: no error, no dunning;
    // an expired page leaves the invoice as it was before it, unpaid.
    const updated: Invoice = { ...invoice, latestAttemptStatus: result.status === 'requires_action' ? 'requires_action' : null, updatedAt: real };
    await saveInvoice(trx, tenant, updated);
    return { invoice: updated, payment: updatedPayment };
  }

  // failed or requires_action, for the latest attempt of an open invoice.
  const settings = after.settings ?? (after.settings = await billingSettingsOf(trx, tenant));
  const firstFailedAt = invoice.paymentFailedAt ?? now;
  const step = payment.trigger === 'plan_change' ? null : nextDunningStep(settings, firstFailedAt, now);
  let updated: Invoice = {
    ...invoice,
    latestAttemptStatus: result.status,
    // A charge made on-session that needs 3-D Secure comes without a decline code: it is authentication that is missing.
    lastPaymentError: {
      code: result.failureCode ?? (result.status === 'requires_action' ? 'authentication_required' : 'failed'),
      message: result.failureMessage,
    },
    paymentActionUrl: result.status === 'requires_action' ? result.actionUrl : null,
    paymentFailedAt: firstFailedAt,
    nextPaymentAttemptAt: step?.kind === 'retry' ? step.at : null,
    updatedAt: real,
  };
  if (step?.kind === 'final' && step.action === 'mark_uncollectible') {
    updated = { ...updated, status: 'uncollectible', markedUncollectibleAt: now };
  }
  await saveInvoice(trx, tenant, updated);
  const type = result.status === 'requires_action' ? 'invoice.payment_action_required' : 'invoice.payment_failed';
  await recordAudit(trx, deps, origin, {
    eventType: type,
    severity: 'WARN',
    targetType: 'invoice',
    targetId: invoice.id,
    payload: {
      number: invoice.number,
      paymentId,
      attempt: payment.attempt,
      amount: payment.amount,
      currency: payment.currency,
      failureCode: updatedPayment.failureCode,
      nextPaymentAttempt: updated.nextPaymentAttemptAt === null ? null : new Date(updated.nextPaymentAttemptAt).toISOString(),
      finalAction: step?.kind === 'final' ? step.action : null,
    },
  });
  await emitWebhookEvent(trx, deps, origin, invoiceEvent(deps, tenant, type, updated, invoice));
  if (updated.status === 'uncollectible') {
    await recordAudit(trx, deps, origin, {
      eventType: 'invoice.marked_uncollectible',
      targetType: 'invoice',
      targetId: invoice.id,
      payload: { number: invoice.number, from: 'finalized', to: 'uncollectible', reason: 'payment_retries_exhausted' },
    });
    await emitWebhookEvent(
      trx,
      deps,
      origin,
      invoiceEvent(deps, tenant, 'invoice.marked_uncollectible', updated, { ...invoice, ...updated, status: 'finalized', markedUncollectibleAt: null }),
    );
  }
  if (invoice.subscriptionId !== null && payment.trigger !== 'plan_change') {
    if (updated.status === 'uncollectible') after.subscriptionChanged = (await recoverIfSettled(txDeps, tenant, origin, updated)) || after.subscriptionChanged;
    else
      after.subscriptionChanged =
        (await markPastDue(
          txDeps,
          tenant,
          origin,
          invoice.subscriptionId,
          now,
          settings.pastDueGraceDays,
          updated,
          take(after.read?.subscriptions, invoice.subscriptionId),
        )) || after.subscriptionChanged;
    if (step?.kind === 'final' && step.action === 'cancel_subscription')
      after.followUps.push({ cancel: { subscriptionId: invoice.subscriptionId, invoice: updated } });
  }
  return { invoice: updated, payment: updatedPayment };
}

/** The subscription becomes past due (once: later failures keep its first date and grace). */
async function markPastDue(
  deps: Deps,
  tenant: Tenant,
  origin: OperationContext,
  subscriptionId: string,
  now: number,
  graceDays: number,
  invoice: Invoice,
  /** The subscription when the caller read it already in this transaction. */
  read?: Subscription,
): Promise<boolean> {
  const sub = read ?? (await findSubscription(deps.db, tenant, subscriptionId));
  if (!sub || sub.status === 'CANCELLED' || sub.status === 'PAST_DUE') return false;
  const next: Subscription = {
    ...sub,
    status: 'PAST_DUE',
    pastDueSince: now,
    pastDueAccessUntil: pastDueAccessUntil({ pastDueGraceDays: graceDays }, now),
    version: sub.version + 1,
    updatedAt: deps.clock.now(),
  };
  await writeSubscription(deps, tenant, next, sub);
  const payload = { invoiceId: invoice.id, number: invoice.number, pastDueAccessUntil: new Date(next.pastDueAccessUntil!).toISOString() };
  await recordAudit(deps.db, deps, origin, { eventType: 'subscription.past_due', severity: 'WARN', targetType: 'subscription', targetId: sub.id, payload });
  await emitWebhookEvent(deps.db, deps, origin, subscriptionEvent('subscription.past_due', next, sub, payload));
  return true;
}

/**
 * The subscription's change waiting for this invoice's payment (pay first) takes effect, announced
 * as the change it is; gives the subscription as written, or null when nothing waited.
 */
async function applyPendingUpdate(deps: Deps, tenant: Tenant, origin: OperationContext, invoice: Invoice, sub: Subscription): Promise<Subscription | null> {
  if (!sub.pendingUpdate || sub.pendingUpdate.invoiceId !== invoice.id || sub.status === 'CANCELLED') return null;
  const update = sub.pendingUpdate;
  const next = withPendingUpdateApplied(sub, deps.clock.now());
  await writeSubscription(deps, tenant, next, sub);
  const details = { ...update.details, effectiveAt: new Date(await timeOf(deps, tenant, sub.testClockId)).toISOString() };
  const type = changeEventType(update.kind);
  await recordAudit(deps.db, deps, origin, { eventType: type, targetType: 'subscription', targetId: sub.id, payload: details });
  await emitWebhookEvent(deps.db, deps, origin, subscriptionEvent(type, next, sub, details));
  return next;
}

/**
 * A past-due subscription whose failing invoices are all settled (paid, or written off) is itself
 * again. `read`: the invoice's subscription when the caller read it already in this transaction.
 */
export async function recoverIfSettled(deps: Deps, tenant: Tenant, origin: OperationContext, invoice: Invoice, read?: Subscription | null): Promise<boolean> {
  if (invoice.subscriptionId === null) return false;
  const sub = read !== undefined ? read : await findSubscription(deps.db, tenant, invoice.subscriptionId);
  if (!sub || sub.status !== 'PAST_DUE') return false;
  if ((await countFailingInvoices(deps.db, tenant, sub.id, invoice.id)) > 0) return false;
  const next: Subscription = {
    ...sub,
    status: settledStatus(sub),
    pastDueSince: null,
    pastDueAccessUntil: null,
    version: sub.version + 1,
    updatedAt: deps.clock.now(),
  };
  await writeSubscription(deps, tenant, next, sub);
  const payload = { invoiceId: invoice.id, number: invoice.number, invoiceStatus: invoice.status };
  await recordAudit(deps.db, deps, origin, { eventType: 'subscription.recovered', targetType: 'subscription', targetId: sub.id, payload });
  await emitWebhookEvent(deps.db, deps, origin, subscriptionEvent('subscription.recovered', next, sub, payload));
  return true;
}

async function writeSubscription(deps: Deps, tenant: Tenant, next: Subscription, read: Subscription): Promise<void> {
  // Changed since it was read (a renewal, an operator): throw, so the outcome is applied again (webhook redelivery, reconciliation).
  if (!(await updateSubscriptionIfVersion(deps.db, tenant, next, read.version)))
    throw new Error(`subscription ${read.id} changed while a payment outcome was applied`);
}

/** The final rule: the subscription is cancelled as any cancellation is (its usage billed, its keys revoked). */
async function cancelAfterDunning(deps: Deps, c: Collection, tenant: Tenant, origin: OperationContext, f: NonNullable<FollowUp>): Promise<void> {
  const { subscriptionId, invoice } = f.cancel;
  const sub = await findSubscription(deps.db, tenant, subscriptionId);
  if (!sub || sub.status === 'CANCELLED') return;
  await cancelSubscription(
    deps,
    { ...origin, workspaceId: tenant.workspaceId, environment: tenant.environment },
    subscriptionId,
    c.bound,
    subscriptionBilling,
    { reason: null, cancel_channel: 'DUNNING', comment: `The last payment retry of invoice ${invoice.number ?? invoice.id} failed.` },
  );
}

/** An attempt asked of the provider and not yet answered (pending, processing) blocks a new one; one waiting for the buyer does not (it is withdrawn first). */
export const attemptInFlight = (i: Pick<Invoice, 'latestAttemptStatus'>) => i.latestAttemptStatus === 'pending' || i.latestAttemptStatus === 'processing';

/**
 * An attempt asked for now (an operator's retry, the buyer paying from the hub): the invoice must
 * be open, owe something, and have no attempt in flight, in an environment with Stripe connected;
 * otherwise a 409 that says which. Not keyed by the request: each call that gets through is a new
 * attempt (the one before it has an outcome), as Stripe's "pay" is.
 */
export async function attemptPaymentNow(
  deps: Deps,
  c: Collection,
  ctx: OperationContext,
  invoiceId: string,
  opts: { trigger: 'manual_retry' | 'customer'; returnUrl: string | null },
): Promise<CollectResult> {
  const invoice = await findInvoice(deps.db, ctx, invoiceId);
  if (!invoice) throw notFound('invoice', invoiceId);
  if (invoice.status !== 'finalized') {
    throw new AppError(
      'CONFLICT',
      invoice.status === 'draft'
        ? `Invoice '${invoiceId}' is a draft: finalize it before asking for a payment.`
        : `Invoice '${invoiceId}' is ${invoice.status}: only a finalized invoice is charged.`,
    );
  }
  if (attemptInFlight(invoice)) throw new AppError('CONFLICT', `A payment of invoice '${invoiceId}' is in flight; its outcome comes first.`);
  if (!(await findPaymentProvider(deps.db, ctx, 'stripe')))
    throw new AppError('CONFLICT', `Stripe is not connected to the ${ctx.environment} environment: connect it first (PUT /api/v1/payment_providers/stripe).`);
  const r = await collectInvoice(deps, c, ctx, invoiceId, { trigger: opts.trigger, origin: ctx, returnUrl: opts.returnUrl });
  if (r.skipped === 'nothing_owed') throw new AppError('CONFLICT', `Invoice '${invoiceId}' owes nothing.`);
  if (r.skipped === 'provider_unavailable') {
    throw new AppError('SERVICE_UNAVAILABLE', 'Stripe did not answer; nothing was charged. Retry in a moment.', { headers: { 'retry-after': '5' } });
  }
  if (!r.payment) throw new AppError('CONFLICT', `Invoice '${invoiceId}' cannot be charged now (${r.skipped ?? 'unknown'}).`);
  return r;
}
