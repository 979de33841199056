import { nthPeriod, periodContaining } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { afterCommit, atomically } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import { priceVersionFor } from '../catalog/price-version.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import { scheduleOf, SUBSCRIPTIONS_CHANGED, type Subscription } from '../subscriptions/subscription.js';
import { lockSubscriptionForRenewal, updateSubscriptionIfVersion } from '../subscriptions/subscription.repository.js';
import { finalizeInvoice } from './finalize-invoice.js';
import { issueDraftInvoice, issued } from './issue-invoice.js';
import { checkRatableCurrency, entryPriceLine, pricingOf, ratePeriodUsage, unitsFor, type Period } from './rate-subscription-period.js';

/** What one renewal did: the period boundary it crossed and the invoice it issued. */
export interface Renewal {
  subscriptionId: string;
  boundary: number;
  invoiceId: string | null;
  /** The invoice was finalized at once: its grace period was over when the period was closed. */
  invoiceFinalized: boolean;
  outcome: 'renewed' | 'cancelled';
  trialEnded: boolean;
  changeApplied: boolean;
}

/** A rolled-back renewal that found its work done by someone else. */
class AlreadyRenewed extends Error {}

/** The service itself, renewing on the tenant's behalf. */
export function billingOrigin(deps: Pick<Deps, 'ids'>, tenant: Tenant): OperationContext {
  return {
    workspaceId: tenant.workspaceId,
    environment: tenant.environment,
    actor: { type: 'SYSTEM', id: 'billing' },
    correlationId: deps.ids.next('request'),
    source: 'system',
  };
}

/** The period after one that ended at `boundary`: the schedule's period starting there. */
function periodAfter(sub: Subscription, boundary: number): Period {
  const p = periodContaining(scheduleOf(sub), boundary) ?? nthPeriod(scheduleOf(sub), 0);
  return { start: p.start, end: p.end as number };
}

/**
 * Closes the subscription's current period if it ended at or before `now` (the subscription's
 * time), in one transaction: the invoice (usage of the closed period in arrears; unless the
 * subscription ends, the entry price of the next period in advance), the trial's end, a change
 * scheduled for the period end, or the cancellation that was asked for then (its keys revoked),
 * and the next period. Audit events in the same transaction. null when there was nothing to do
 * (not due, or another node holds or has just done it): on PostgreSQL the row is locked and a
 * locked row skipped; the invoice's cycle key is unique, so a period is never invoiced twice.
 * Inside the caller's transaction (the job's groups on SQLite) it is a savepoint of it.
 */
export async function renewSubscription(deps: Deps, tenant: Tenant, subscriptionId: string, now: number, bound: BoundCredentials): Promise<Renewal | null> {
  try {
    return await atomically(deps.db, async (trx) => {
      const txDeps: Deps = { ...deps, db: trx };
      const sub = await lockSubscriptionForRenewal(trx, deps.dialect === 'postgres', tenant, subscriptionId);
      if (!sub || sub.status === 'CANCELLED' || sub.currentPeriodEnd > now) return null;
      checkRatableCurrency(sub);
      const origin = billingOrigin(deps, tenant);
      const closed = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
      const boundary = closed.end;
      const priced = await pricingOf(txDeps, tenant, sub);
      const usage = await ratePeriodUsage(txDeps, tenant, sub, unitsFor(sub, priced), closed);
      const usageLines = usage.rating.lines.map((l) => issued(l, closed));
      const trialEnded = sub.trialEndsAt !== null && boundary === sub.trialEndsAt;
      const realNow = deps.clock.now();
      let next: Subscription;
      let renewal: Renewal;
      let invoiceInput: Parameters<typeof issueDraftInvoice>[3];

      if (sub.cancelAtPeriodEnd) {
        next = {
          ...sub,
          status: 'CANCELLED',
          cancelledAt: boundary,
          cancelAtPeriodEnd: false,
          scheduledChange: null,
          version: sub.version + 1,
          updatedAt: realNow,
        };
        renewal = { subscriptionId, boundary, invoiceId: null, invoiceFinalized: false, outcome: 'cancelled', trialEnded, changeApplied: false };
        invoiceInput = {
          sub,
          cycleKey: `cancel:${boundary}`,
          billingReason: 'subscription_cancel',
          period: closed,
          priceVersionId: sub.priceVersionId,
          lines: usageLines,
          at: boundary,
        };
      } else {
        const change = sub.scheduledChange;
        const offeringId = change?.offeringId ?? sub.offeringId;
        let priceVersionId = sub.priceVersionId;
        let nextPriced = priced;
        // A change or an unpinned subscription takes the offering's prices of the day; a pinned one
        // keeps its version. The version is the same row while the offering's prices are unchanged.
        if (offeringId !== null && (change !== null || !sub.priceVersionPinned || sub.priceVersionId === null)) {
          const live = await loadPricedOffering(txDeps, tenant, offeringId);
          if (live) {
            nextPriced = live;
            priceVersionId = await priceVersionFor(txDeps, tenant, live);
          }
        }
        const period = periodAfter(sub, boundary);
        next = {
          ...sub,
          status: 'ACTIVE',
          offeringId,
          priceVersionId,
          scheduledChange: null,
          currentPeriodStart: period.start,
          currentPeriodEnd: period.end,
          version: sub.version + 1,
          updatedAt: realNow,
        };
        const entry = entryPriceLine(next, nextPriced, period);
        renewal = { subscriptionId, boundary, invoiceId: null, invoiceFinalized: false, outcome: 'renewed', trialEnded, changeApplied: change !== null };
        invoiceInput = {
          sub: next,
          cycleKey: `cycle:${boundary}`,
          billingReason: 'subscription_cycle',
          period: closed,
          // The usage lines were rated with the closed period's prices; the invoice names them.
          priceVersionId: sub.priceVersionId,
          lines: [...(entry ? [issued(entry, period)] : []), ...usageLines],
          at: boundary,
        };
      }

      if (!(await updateSubscriptionIfVersion(trx, tenant, next, sub.version))) throw new AlreadyRenewed();
      if (invoiceInput.lines.length > 0) {
        const invoice = await issueDraftInvoice(txDeps, tenant, origin, invoiceInput);
        if (!invoice) throw new AlreadyRenewed();
        renewal.invoiceId = invoice.id;
        // Closed late (a catch-up, a test clock moved past the grace): the grace is over already,
        // so the draft is finalized here, rated once. Usage arriving later is an adjustment.
        if (invoice.finalizeAt <= now) {
          await finalizeInvoice(txDeps, tenant, origin, invoice.id, now, { onlyDraft: false, rerate: false });
          renewal.invoiceFinalized = true;
        }
      }
      await recordRenewal(txDeps, tenant, origin, sub, next, renewal, bound);
      await afterCommit(trx, () => deps.caches.clear(SUBSCRIPTIONS_CHANGED));
      return renewal;
    });
  } catch (err) {
    if (err instanceof AlreadyRenewed) return null;
    throw err;
  }
}

async function recordRenewal(
  txDeps: Deps,
  tenant: Tenant,
  origin: OperationContext,
  sub: Subscription,
  next: Subscription,
  r: Renewal,
  bound: BoundCredentials,
): Promise<void> {
  const audit = (eventType: string, payload: Record<string, unknown>) =>
    recordAudit(txDeps.db, txDeps, origin, { eventType, targetType: 'subscription', targetId: sub.id, payload });
  const at = new Date(r.boundary).toISOString();
  if (r.trialEnded) await audit('subscription.trial_ended', { trialEndedAt: at });
  if (r.outcome === 'cancelled') {
    const revoked = await bound.revokeForSubscription(txDeps, origin, sub.id, txDeps.clock.now());
    await audit('subscription.cancelled', {
      reason: 'period_end',
      cancelledAt: at,
      invoiceId: r.invoiceId,
      revokedKeyIds: revoked.keyIds,
      revokedClientCredentialIds: revoked.clientCredentialIds,
    });
    await bound.recordRevocations(txDeps, origin, sub.id, revoked);
    return;
  }
  if (r.changeApplied) {
    await audit('subscription.change_applied', { fromOfferingId: sub.offeringId, toOfferingId: next.offeringId, at });
  }
  await audit('subscription.renewed', {
    closedPeriodStart: new Date(sub.currentPeriodStart).toISOString(),
    closedPeriodEnd: at,
    currentPeriodStart: new Date(next.currentPeriodStart).toISOString(),
    currentPeriodEnd: new Date(next.currentPeriodEnd).toISOString(),
    invoiceId: r.invoiceId,
    priceVersionId: next.priceVersionId,
  });
}
