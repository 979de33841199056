import type { AuditEventType } from '../audit/audit-event-types.js';
import { nthPeriod, periodContaining } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { afterCommit, atomically } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import type { AuditEventInput } from '../audit/audit-event.js';
import { recordAudits } from '../audit/audit-event.repository.js';
import { emitWebhookEvents, type WebhookEventInput } from '../outbound-webhooks/emit-webhook-events.js';
import type { CatalogType } from '../outbound-webhooks/event-catalog.js';
import { loadPricedOffering, type PricedOffering } from '../catalog/load-priced-offering.js';
import { priceVersionFor } from '../catalog/price-version.js';
import type { BoundCredentials, RevokedCredentials } from '../subscriptions/bound-credentials.js';
import { scheduleOf, SUBSCRIPTIONS_CHANGED, type Subscription } from '../subscriptions/subscription.js';
import { subscriptionEvent } from '../subscriptions/subscription-event.js';
import { lockSubscriptionsForRenewal, updateRenewedSubscriptions } from '../subscriptions/subscription.repository.js';
import type { BillingSettings } from './billing-settings.js';
import { billingSettingsOf } from './billing-settings.repository.js';
import { finalizeDrafts, invoiceFinalizedAudit, paidAtFinalization } from './finalize-invoice.js';
import { withLines, type Invoice } from './invoice.js';
import { applyCredits } from './invoice-credits.js';
import { insertInvoices } from './invoice.repository.js';
import { draftInvoice, invoiceCreatedAudit, invoiceEvent, issued, type DraftInput } from './issue-invoice.js';
import { discountAfterInvoice, discountApplies, discountLine } from './discount-line.js';
import { readUsageOncePer } from './read-rating-usage.js';
import { billingOrigin } from './billing-origin.js';
import { grantRecurringCredits, recurringCreditsOf, rollOverCredits } from './recurring-credits.js';
import { billingPeriodStart, checkRatableCurrency, entryPriceLine, pricingOf, ratePeriodUsage, unitsFor, type Period } from './rate-subscription-period.js';

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

/** A rolled-back group that found some of its work done by someone else. */
class AlreadyRenewed extends Error {}

export { billingOrigin } from './billing-origin.js';

/** The period after one that ended at `boundary`: the schedule's period starting there. */
function periodAfter(sub: Subscription, boundary: number): Period {
  const p = periodContaining(scheduleOf(sub), boundary) ?? nthPeriod(scheduleOf(sub), 0);
  return { start: p.start, end: p.end as number };
}

/** One period closed, as decided before anything is written. */
interface ClosedPeriod {
  sub: Subscription;
  next: Subscription;
  renewal: Renewal;
  origin: OperationContext;
  /** The invoice it issues (a draft), or null when there is nothing to bill. */
  invoice: Invoice | null;
  /** The prices of the closed period and of the next one (PREPAID recurring credits). */
  priced: PricedOffering | null;
  nextPriced: PricedOffering | null;
}

/** What a group reads once for all of its subscriptions. */
interface GroupReads {
  settings: BillingSettings;
  /** Price version ids of the offerings' prices of the day, by the (cached) priced offering read. */
  versions: Map<PricedOffering, string>;
}

/**
 * Decides how one subscription's current period closes at its end: the invoice (usage of the
 * closed period in arrears; unless the subscription ends, the entry price of the next period in
 * advance and the retention discount while one runs), the trial's end, a change scheduled for the period end, or the cancellation that was
 * asked for then, and the next period. Reads prices and usage; writes nothing.
 */
async function closePeriod(txDeps: Deps, tenant: Tenant, sub: Subscription, reads: GroupReads): Promise<ClosedPeriod> {
  checkRatableCurrency(sub);
  const origin = billingOrigin(txDeps, tenant);
  const closed = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
  const boundary = closed.end;
  const priced = await pricingOf(txDeps, tenant, sub);
  const allowanceFrom = billingPeriodStart(sub, closed.start);
  const usage = await ratePeriodUsage(txDeps, tenant, sub, unitsFor(sub, priced), closed, allowanceFrom);
  const usageLines = usage.rating.lines.map((l) => issued(l, closed));
  const trialEnded = sub.trialEndsAt !== null && boundary === sub.trialEndsAt;
  const realNow = txDeps.clock.now();
  const renewal: Renewal = { subscriptionId: sub.id, boundary, invoiceId: null, invoiceFinalized: false, outcome: 'renewed', trialEnded, changeApplied: false };
  let next: Subscription;
  let draft: DraftInput;
  let nextPriced: PricedOffering | null = null;

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
    renewal.outcome = 'cancelled';
    draft = {
      sub,
      cycleKey: `cancel:${boundary}`,
      billingReason: 'subscription_cancel',
      period: closed,
      allowanceFrom: allowanceFrom < closed.start ? allowanceFrom : null,
      priceVersionId: sub.priceVersionId,
      lines: usageLines,
      at: boundary,
    };
  } else {
    const change = sub.scheduledChange;
    const offeringId = change?.offeringId ?? sub.offeringId;
    let priceVersionId = sub.priceVersionId;
    nextPriced = priced;
    // A change or an unpinned subscription takes the offering's prices of the day; a pinned one
    // keeps its version. The version is the same row while the offering's prices are unchanged.
    if (offeringId !== null && (change !== null || !sub.priceVersionPinned || sub.priceVersionId === null)) {
      const live = await loadPricedOffering(txDeps, tenant, offeringId);
      if (live) {
        nextPriced = live;
        let id = reads.versions.get(live);
        if (id === undefined) {
          id = await priceVersionFor(txDeps, tenant, live);
          reads.versions.set(live, id);
        }
        priceVersionId = id;
      }
    }
    // A change to an offering billed on another period restarts the schedule at the boundary.
    const restarts = change !== null && nextPriced !== null && nextPriced.offering.billingPeriod !== sub.billingPeriod;
    const schedule = restarts ? { ...sub, billingPeriod: nextPriced!.offering.billingPeriod as Subscription['billingPeriod'], billingAnchor: boundary } : sub;
    const period = periodAfter(schedule, boundary);
    next = {
      ...schedule,
      // Past due stays past due across renewals until its failed invoices are settled.
      status: sub.status === 'PAST_DUE' ? 'PAST_DUE' : 'ACTIVE',
      offeringId,
      priceVersionId,
      scheduledChange: null,
      // The change's own limits replace the old ones (kept for a change scheduled before changes carried them).
      usageLimits: change ? (change.usageLimits ?? sub.usageLimits) : sub.usageLimits,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      version: sub.version + 1,
      updatedAt: realNow,
    };
    const entry = entryPriceLine(next, nextPriced, period);
    renewal.changeApplied = change !== null;
    const lines = [...(entry ? [issued(entry, period)] : []), ...usageLines];
    // A retention discount: read with the row, counted down in the same update (no extra query).
    if (lines.length > 0 && discountApplies(sub.discount)) {
      lines.push(issued(discountLine(sub.discount, lines, sub.currency), closed));
      next.discount = discountAfterInvoice(sub.discount);
    }
    draft = {
      sub: next,
      cycleKey: `cycle:${boundary}`,
      billingReason: 'subscription_cycle',
      period: closed,
      allowanceFrom: allowanceFrom < closed.start ? allowanceFrom : null,
      // The usage lines were rated with the closed period's prices; the invoice names them.
      priceVersionId: sub.priceVersionId,
      lines,
      at: boundary,
    };
  }
  const invoice = draft.lines.length > 0 ? draftInvoice(txDeps, reads.settings, draft) : null;
  renewal.invoiceId = invoice?.id ?? null;
  return { sub, next, renewal, origin, invoice, priced, nextPriced };
}

/**
 * Closes the current period of each of a tenant's subscriptions (ids) that ended at or before
 * `now` (their time), in one transaction: for each, what closePeriod decides, the cancellation's
 * keys revoked, audit events and webhook messages. The invoices whose grace is over already (a
 * catch-up, a test clock moved past it) are finalized at once, rated once; usage arriving later
 * is an adjustment. One period per subscription per call: the job calls again for subscriptions
 * still behind, so three missed periods give three invoices, oldest first. Every row of the group
 * is written in a few statements, which is what makes 100,000 renewals a minute's work.
 *
 * A subscription not due, or held by another node (PostgreSQL locks the rows and skips locked
 * ones), is left out; if one turns out renewed meanwhile (its version moved, its cycle invoice
 * exists), the whole group is rolled back: alone, nothing is returned; in a group, it throws and
 * the job retries the subscriptions one at a time. Inside the caller's transaction it is a
 * savepoint of it.
 */
export async function renewSubscriptions(deps: Deps, tenant: Tenant, ids: readonly string[], now: number, bound: BoundCredentials): Promise<Renewal[]> {
  try {
    return await atomically(deps.db, async (trx) => {
      const txDeps: Deps = { ...deps, db: trx };
      readUsageOncePer(trx);
      const subs = (await lockSubscriptionsForRenewal(trx, deps.dialect === 'postgres', tenant, ids)).filter(
        (s) => s.status !== 'CANCELLED' && s.currentPeriodEnd <= now,
      );
      if (subs.length === 0) return [];
      const reads: GroupReads = { settings: await billingSettingsOf(trx, tenant), versions: new Map() };
      const closed: ClosedPeriod[] = [];
      for (const sub of subs) closed.push(await closePeriod(txDeps, tenant, sub, reads));

      const written = await updateRenewedSubscriptions(
        trx,
        tenant,
        closed.map((c) => ({ next: c.next, readVersion: c.sub.version })),
      );
      if (written !== closed.length) throw new AlreadyRenewed();
      // PREPAID: the next period's recurring credits; and, when no invoice will finalize the
      // closed period's draws (there is nothing to bill), its rollover now.
      for (const c of closed) {
        if (c.renewal.outcome !== 'renewed') continue;
        if (c.invoice === null) await rollOverCredits(txDeps, c.origin, c.next, recurringCreditsOf(c.priced), c.renewal.boundary);
        await grantRecurringCredits(txDeps, c.origin, c.next, c.nextPriced, { start: c.next.currentPeriodStart, end: c.next.currentPeriodEnd });
      }
      // Revoked before the audit events are written, which name what was revoked.
      const revoked = new Map<string, RevokedCredentials>();
      for (const c of closed) {
        if (c.renewal.outcome === 'cancelled') revoked.set(c.sub.id, await bound.revokeForSubscription(txDeps, c.origin, c.sub.id, deps.clock.now()));
      }
      // A PREPAID subscription's closed period draws from its credits now, so that the balance
      // counts it during the grace period; a draft finalized below at once draws there.
      for (const c of closed) {
        if (c.invoice === null || c.invoice.finalizeAt <= now) continue;
        const lines = await applyCredits(txDeps, tenant, c.invoice, c.invoice.lines, now);
        if (lines !== c.invoice.lines) c.invoice = withLines(c.invoice, lines);
      }
      const drafts = closed.flatMap((c) => (c.invoice ? [c.invoice] : []));
      // Last, so that the number sequence's row (locked until the commit) is held briefly.
      const due = drafts.filter((d) => d.finalizeAt <= now);
      const done = new Map((await finalizeDrafts(txDeps, tenant, due, now, reads.settings, { rerate: false })).map((i) => [i.id, i]));
      const invoices = drafts.map((d) => done.get(d.id) ?? d);
      if ((await insertInvoices(trx, tenant, invoices)) !== invoices.length) throw new AlreadyRenewed();

      const events: Array<{ origin: OperationContext; event: AuditEventInput }> = [];
      const messages: Array<{ origin: OperationContext; event: WebhookEventInput }> = [];
      for (const c of closed) {
        const invoice = c.invoice && (done.get(c.invoice.id) ?? c.invoice);
        // Paid at once by the customer's balance is finalized too (finalize-invoice.ts: paidFrom).
        const wasFinalized = invoice !== null && done.has(invoice.id);
        c.renewal.invoiceFinalized = wasFinalized;
        const add = (event: AuditEventInput, message: WebhookEventInput | null) => {
          events.push({ origin: c.origin, event });
          if (message) messages.push({ origin: c.origin, event: message });
        };
        if (invoice) add(invoiceCreatedAudit(c.invoice!), invoiceEvent(deps, tenant, 'invoice.created', c.invoice!));
        if (wasFinalized) add(invoiceFinalizedAudit(invoice), invoiceEvent(deps, tenant, 'invoice.finalized', invoice, c.invoice!));
        const paid = wasFinalized ? paidAtFinalization(deps, tenant, invoice) : null;
        if (paid) add(paid.audit, paid.message);
        for (const e of renewalEvents(c, revoked.get(c.sub.id))) add(e.audit, e.message);
      }
      await recordAudits(trx, deps, events);
      // The webhook messages of the whole group, in the audit log's order, in a few statements.
      await emitWebhookEvents(trx, deps, messages);
      // One audit event per credential revoked, after the cancellation's, which names them.
      for (const [subscriptionId, r] of revoked)
        await bound.recordRevocations(txDeps, closed.find((c) => c.sub.id === subscriptionId)!.origin, subscriptionId, r);
      await afterCommit(trx, () => deps.caches.clear(SUBSCRIPTIONS_CHANGED));
      return closed.map((c) => c.renewal);
    });
  } catch (err) {
    // Alone, it was renewed by someone else: nothing to do. In a group, the others may still be due.
    if (err instanceof AlreadyRenewed && ids.length === 1) return [];
    throw err;
  }
}

/**
 * The subscription's audit events for a closed period (the invoice's are written with it), each
 * with its webhook message when the catalog names one: the subscription after the renewal, the
 * fields it had before, and the audit payload as details.
 */
function renewalEvents(c: ClosedPeriod, revoked: RevokedCredentials | undefined): Array<{ audit: AuditEventInput; message: WebhookEventInput | null }> {
  const { sub, next, renewal: r } = c;
  const at = new Date(r.boundary).toISOString();
  const events: Array<{ audit: AuditEventInput; message: WebhookEventInput | null }> = [];
  const event = (eventType: AuditEventType, payload: Record<string, unknown>, webhook?: { type: CatalogType; details: Record<string, unknown> }) =>
    events.push({
      audit: { eventType, targetType: 'subscription', targetId: sub.id, payload },
      message: webhook ? subscriptionEvent(webhook.type, next, sub, webhook.details) : null,
    });
  if (r.trialEnded) event('subscription.trial_ended', { trialEndedAt: at });
  if (r.outcome === 'cancelled') {
    const payload = {
      reason: 'period_end',
      cancelledAt: at,
      invoiceId: r.invoiceId,
      revokedKeyIds: revoked?.keyIds ?? [],
      revokedClientCredentialIds: revoked?.clientCredentialIds ?? [],
    };
    // The same details as an IMMEDIATE cancel: the reason, channel and comment the subscription
    // kept from the request (null for a cancellation scheduled before it kept them).
    const { revokedKeyIds, revokedClientCredentialIds, invoiceId } = payload;
    const asked = sub.cancellationDetails;
    const details = {
      applyAt: 'PERIOD_END',
      reason: asked?.reason ?? null,
      channel: asked?.cancel_channel ?? null,
      comment: asked?.comment ?? null,
      creditNoteId: null,
      revokedKeyIds,
      revokedClientCredentialIds,
      invoiceId,
    };
    event('subscription.cancelled', payload, { type: 'subscription.cancelled', details });
    return events;
  }
  if (r.changeApplied) {
    const change = { fromOfferingId: sub.offeringId, toOfferingId: next.offeringId, at };
    const kind = sub.scheduledChange?.kind;
    const channel = sub.scheduledChange?.channel ?? 'API';
    // The webhook details of an IMMEDIATE change, field for field: nothing is prorated at the
    // boundary, and the renewal's invoice bills the new offering.
    const details = {
      kind: kind ?? null,
      applyAt: 'PERIOD_END',
      channel: kind ? channel : null,
      fromOfferingId: sub.offeringId,
      toOfferingId: next.offeringId,
      effectiveAt: at,
      credit: null,
      debit: null,
      net: null,
      invoiceId: r.invoiceId,
      creditNoteId: null,
    };
    // A change scheduled before plan changes named their kind is sent as plan_changed.
    event('subscription.change_applied', change, kind ? undefined : { type: 'subscription.plan_changed', details });
    // The same event an IMMEDIATE change writes, now that this one takes effect (plan-changes).
    if (kind) event(changeEventType(kind), { ...change, kind, applyAt: 'PERIOD_END', channel }, { type: changeEventType(kind), details });
  }
  const renewed = {
    closedPeriodStart: new Date(sub.currentPeriodStart).toISOString(),
    closedPeriodEnd: at,
    currentPeriodStart: new Date(next.currentPeriodStart).toISOString(),
    currentPeriodEnd: new Date(next.currentPeriodEnd).toISOString(),
    invoiceId: r.invoiceId,
    priceVersionId: next.priceVersionId,
  };
  event('subscription.renewed', renewed, { type: 'subscription.renewed', details: renewed });
  return events;
}

/** The audit event of a plan change that takes effect, by its kind. */
export function changeEventType(kind: 'UPGRADE' | 'DOWNGRADE' | 'LATERAL'): 'subscription.upgraded' | 'subscription.downgraded' | 'subscription.plan_changed' {
  return kind === 'UPGRADE' ? 'subscription.upgraded' : kind === 'DOWNGRADE' ? 'subscription.downgraded' : 'subscription.plan_changed';
}
