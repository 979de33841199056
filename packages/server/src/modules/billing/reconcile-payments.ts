import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { PaymentProviderError, type ChargeResult } from '../payments/payment-provider.js';
import { findPaymentProvider } from '../payments/payment-provider-connection.repository.js';
import { listUnsettledAttempts, touchPayment } from '../payments/payment.repository.js';
import { stripeProviderOf } from '../payments/stripe-for.js';
import { applyChargeOutcome, sendAttempt, type Collection } from './collect-invoice.js';
import { findInvoice } from './invoice.repository.js';
import { reconcileRefunds } from './refund-credit-note.js';
import { billingOrigin } from './renew-subscription.js';

/** An attempt waiting for the buyer (3-D Secure) is asked about once an hour: they may take days. */
const ACTION_RECHECK_MS = 3_600_000;
/** At most this many attempts asked about per run, and this many calls at once. */
const PAGE = 500;
const AT_ONCE = 4;

export interface Reconciliation {
  checked: number;
  /** Outcomes learnt (a lost answer or a lost webhook). */
  settled: number;
}

/**
 * The reconciliation (every billing run on real time): attempts whose outcome has not arrived
 * within PAYMENT_RECONCILE_AFTER_MS are asked about. One without the provider's reference (the
 * answer to the charge was lost: a crash, a timeout) is sent again as it was, under its own
 * idempotency key, so the provider answers with the charge it made, or makes the only one; one with
 * a reference is read. Either outcome is applied as a webhook's would be, so a lost answer or a
 * lost webhook never leaves an invoice open for ever, and nothing is charged twice.
 */
export async function reconcilePayments(deps: Deps, c: Collection): Promise<Reconciliation> {
  const now = deps.clock.now();
  const unsettled = await listUnsettledAttempts(deps.db, { before: now - deps.config.paymentReconcileAfterMs, actionBefore: now - ACTION_RECHECK_MS }, PAGE);
  const run: Reconciliation = { checked: 0, settled: 0 };
  const providers = new Map<string, ReturnType<typeof stripeProviderOf> | null>();
  const providerOf = async (tenant: Tenant) => {
    const key = `${tenant.workspaceId}:${tenant.environment}`;
    if (!providers.has(key)) {
      const connection = await findPaymentProvider(deps.db, tenant, 'stripe');
      providers.set(key, connection ? stripeProviderOf(deps, connection) : null);
    }
    return providers.get(key)!;
  };
  let next = 0;
  const worker = async () => {
    while (next < unsettled.length) {
      const { tenant, payment } = unsettled[next++]!;
      run.checked += 1;
      try {
        const provider = await providerOf(tenant);
        const invoice = provider ? await findInvoice(deps.db, tenant, payment.invoiceId) : null;
        let result: ChargeResult | null = null;
        if (provider && invoice) {
          if (payment.providerReference === null) result = await sendAttempt(deps, provider, tenant, invoice, payment, null);
          else {
            try {
              result = await provider.retrieveCharge(payment.providerReference);
            } catch (err) {
              if (!(err instanceof PaymentProviderError) || err.kind !== 'unavailable') throw err;
            }
          }
        }
        if (result !== null) {
          const applied = await applyChargeOutcome(deps, c, tenant, payment.id, result, billingOrigin(deps, tenant));
          if (applied.payment && applied.payment.status !== payment.status) run.settled += 1;
        }
        // Still without an outcome (or no provider to ask): asked again after the bound.
        if (result === null || result.status === payment.status) await touchPayment(deps.db, tenant, payment.id, deps.clock.now());
      } catch (err) {
        deps.log.error({ err, paymentId: payment.id, workspaceId: tenant.workspaceId }, 'reconciling a payment attempt failed; the next run tries again');
        await touchPayment(deps.db, tenant, payment.id, deps.clock.now()).catch(() => undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, unsettled.length) }, worker));
  // Refunds whose answer was lost, or that Stripe was down for, the same way (refund-credit-note.ts).
  const refunds = await reconcileRefunds(deps);
  run.settled += refunds;
  return run;
}
