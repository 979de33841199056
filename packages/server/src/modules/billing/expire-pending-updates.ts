import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { SUBSCRIPTIONS_CHANGED, type Subscription } from '../subscriptions/subscription.js';
import { findSubscription, listWithPendingUpdates, updateSubscriptionIfVersion } from '../subscriptions/subscription.repository.js';
import type { Invoice } from './invoice.js';
import { findInvoice, saveInvoice } from './invoice.repository.js';
import { invoiceEvent } from './issue-invoice.js';
import { billingOrigin } from './renew-subscription.js';

/**
 * Plan changes that waited for their payment past `expiresAt` (23 hours, as Stripe's pending
 * updates) are dropped: the subscription stays as it is, and the change's unpaid invoice is voided
 * (invoice.voided), so it is neither charged later nor owed. One a payment settled meanwhile was
 * applied already and is not listed. Each in its own transaction; the count dropped.
 */
export async function expirePendingUpdates(deps: Deps, now: number, where: { tenant: Tenant; id: string } | null): Promise<number> {
  let dropped = 0;
  for (const { tenant, subscription } of await listWithPendingUpdates(deps.db, where, 1_000)) {
    if (subscription.pendingUpdate!.expiresAt > now) continue;
    const origin = billingOrigin(deps, tenant);
    const done = await inTransaction(deps.db, async (trx) => {
      const invoice = await findInvoice(trx, tenant, subscription.pendingUpdate!.invoiceId, { lock: deps.dialect === 'postgres' });
      const sub = await findSubscription(trx, tenant, subscription.id);
      if (!sub?.pendingUpdate || sub.pendingUpdate.invoiceId !== subscription.pendingUpdate!.invoiceId) return false;
      if (invoice?.status === 'paid') return false; // paid at the last moment: the payment applies it
      const next: Subscription = { ...sub, pendingUpdate: null, version: sub.version + 1, updatedAt: deps.clock.now() };
      if (!(await updateSubscriptionIfVersion(trx, tenant, next, sub.version))) return false;
      const payload = {
        invoiceId: sub.pendingUpdate.invoiceId,
        toOfferingId: sub.pendingUpdate.offeringId,
        expiresAt: new Date(sub.pendingUpdate.expiresAt).toISOString(),
      };
      await recordAudit(trx, deps, origin, { eventType: 'subscription.change_expired', targetType: 'subscription', targetId: sub.id, payload });
      if (invoice && (invoice.status === 'finalized' || invoice.status === 'uncollectible')) {
        const voided: Invoice = { ...invoice, status: 'void', voidedAt: now, nextPaymentAttemptAt: null, updatedAt: deps.clock.now() };
        await saveInvoice(trx, tenant, voided);
        const reason = { number: invoice.number, from: invoice.status, to: 'void', reason: 'plan_change_unpaid' };
        await recordAudit(trx, deps, origin, { eventType: 'invoice.voided', targetType: 'invoice', targetId: invoice.id, payload: reason });
        await emitWebhookEvent(trx, deps, origin, invoiceEvent(deps, origin, 'invoice.voided', voided, invoice));
      }
      return true;
    });
    if (done) dropped += 1;
  }
  if (dropped > 0) deps.caches.clear(SUBSCRIPTIONS_CHANGED);
  return dropped;
}
