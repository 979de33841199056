import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { afterCommit, inTransaction } from '../../db/transaction.js';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { subscriptionEvent } from '../subscriptions/subscription-event.js';
import { changeEventType } from '../billing/renew-subscription.js';
import { creditUnusedTime, issueChangeInvoice } from '../billing/plan-change-billing.js';
import { collectInvoice, type Collection } from '../billing/collect-invoice.js';
import { findInvoicesByCycleKeys, saveInvoice } from '../billing/invoice.repository.js';
import type { CreditNote } from '../billing/credit-note.js';
import type { Invoice } from '../billing/invoice.js';
import { priceVersionFor } from '../catalog/price-version.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import { cancelSubscription, type CancelRequest } from '../subscriptions/cancel-subscription.js';
import type { SubscriptionBilling } from '../subscriptions/subscription-billing.js';
import { PENDING_UPDATE_TTL_MS, presentSubscription, SUBSCRIPTIONS_CHANGED, type Subscription } from '../subscriptions/subscription.js';
import { findSubscription, updateSubscriptionIfVersion } from '../subscriptions/subscription.repository.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { checkEntitlementConfig } from '../subscriptions/check-entitlement-config.js';
import { toUsageLimitOverrides } from '../subscriptions/usage-limits.js';
import type { CancelInput, ChangeAction, ChangeChannel, ChangeResultSchema, ApplyAt, OperatorChangeInput } from './plan-change.js';
import { quoteChange, unusedTimeDescription } from './quote-change.js';

/**
 * Carrying out a plan change, a cancellation, or withdrawing what waits for the period end: each
 * in one transaction with its invoice, credit note and audit event, written only if the
 * subscription is still the version read (and the one the preview showed, when the caller says
 * which: 409 SUBSCRIPTION_CHANGED otherwise).
 */

export type ChangeResult = Static<typeof ChangeResultSchema>;

interface Outcome {
  action: ChangeAction;
  applyAt: ApplyAt;
  channel: ChangeChannel;
  sub: Subscription;
  invoiceId: string | null;
  invoiceNumber: string | null;
  creditNoteId: string | null;
  creditNoteNumber: string | null;
  creditNoteAmount: string | null;
  scheduledAt: number | null;
  effectiveAt: number | null;
  offeringName: string | null;
  /** Pay first: the change waits for its invoice's payment, made after the commit (settleChangePayment). */
  paysFirst?: boolean;
}

function presentOutcome(o: Outcome): ChangeResult {
  return {
    object: 'subscription_change',
    subscriptionId: o.sub.id,
    action: o.action,
    applyAt: o.applyAt,
    channel: o.channel,
    status: o.sub.status,
    offeringId: o.sub.scheduledChange?.offeringId ?? o.sub.offeringId,
    offeringName: o.offeringName,
    invoiceId: o.invoiceId,
    invoiceNumber: o.invoiceNumber,
    creditNoteId: o.creditNoteId,
    creditNoteNumber: o.creditNoteNumber,
    creditNoteAmount: o.creditNoteAmount,
    scheduledAt: toIsoOrNull(o.scheduledAt),
    effectiveAt: toIsoOrNull(o.effectiveAt),
    payment: o.paysFirst ? { status: 'pending', failureCode: null, failureMessage: null, actionUrl: null } : null,
    subscription: presentSubscription(o.sub),
  };
}

type Issued = Pick<Outcome, 'invoiceId' | 'invoiceNumber' | 'creditNoteId' | 'creditNoteNumber' | 'creditNoteAmount'>;
const NOTHING_ISSUED: Issued = { invoiceId: null, invoiceNumber: null, creditNoteId: null, creditNoteNumber: null, creditNoteAmount: null };

/** The invoice and credit note a change issued, by id and by the number the buyer reads on them (a draft has none yet). */
function issued(invoice: Invoice | null | undefined, note: CreditNote | null): Issued {
  return {
    invoiceId: invoice?.id ?? null,
    invoiceNumber: invoice?.number ?? null,
    creditNoteId: note?.id ?? null,
    creditNoteNumber: note?.number ?? null,
    creditNoteAmount: note?.total ?? null,
  };
}

/** The subscription to change, as the caller last saw it (expectedVersion), with nothing waiting. */
async function subscriptionToChange(db: Deps['db'], ctx: OperationContext, id: string, expectedVersion: number | undefined): Promise<Subscription> {
  const sub = await findSubscription(db, ctx, id);
  if (!sub) throw notFound('subscription', id);
  if (expectedVersion !== undefined && sub.version !== expectedVersion) {
    throw new AppError(
      'SUBSCRIPTION_CHANGED',
      `Subscription '${id}' changed since the preview (version ${expectedVersion}, now ${sub.version}): it is ${sub.status} on offering '${sub.offeringId ?? 'none'}'${
        sub.scheduledChange ? `, with a change to '${sub.scheduledChange.offeringId}' scheduled` : sub.cancelAtPeriodEnd ? ', cancelling at its period end' : ''
      }. Preview again.`,
      { field: 'body.expectedVersion' },
    );
  }
  return sub;
}

export function checkNothingPending(sub: Subscription): void {
  if (sub.scheduledChange || sub.cancelAtPeriodEnd) {
    const what = sub.scheduledChange ? `a change to offering '${sub.scheduledChange.offeringId}'` : 'its cancellation';
    throw new AppError(
      'CHANGE_PENDING',
      `Subscription '${sub.id}' has ${what} scheduled for ${new Date(sub.currentPeriodEnd).toISOString()}; withdraw it first (POST …/withdraw-change).`,
    );
  }
}

async function save(db: Deps['db'], ctx: OperationContext, next: Subscription, read: Subscription): Promise<void> {
  if (!(await updateSubscriptionIfVersion(db, ctx, next, read.version))) {
    throw new AppError('SUBSCRIPTION_CHANGED', `Subscription '${read.id}' was changed by another request meanwhile; preview again.`);
  }
}

/**
 * Changes the subscription's offering now (prorated) or at its period end. Its own usage limits
 * are the request's from then on (none unless sent: overrides of the old offering's defaults
 * would rarely suit the new one), under the new offering's defaults.
 */
export async function changePlan(deps: Deps, ctx: OperationContext, id: string, input: OperatorChangeInput, channel: ChangeChannel): Promise<ChangeResult> {
  const applyAt = input.applyAt ?? 'IMMEDIATE';
  const outcome = await inTransaction(deps.db, async (trx): Promise<Outcome> => {
    const txDeps: Deps = { ...deps, db: trx };
    const sub = await subscriptionToChange(trx, ctx, id, input.expectedVersion);
    checkNothingPending(sub);
    if (input.usageLimits) await checkEntitlementConfig(trx, ctx, { usageLimits: input.usageLimits });
    const usageLimits = toUsageLimitOverrides(input.usageLimits ?? []);
    const now = await timeOf(txDeps, ctx, sub.testClockId);
    const q = await quoteChange(txDeps, ctx, sub, { action: 'change', offeringId: input.offeringId }, applyAt, now);
    const to = q.to!;
    const kind = q.action as 'UPGRADE' | 'DOWNGRADE' | 'LATERAL';
    const base = { action: q.action, applyAt, channel, ...NOTHING_ISSUED, offeringName: to.offering.name };

    if (applyAt === 'PERIOD_END') {
      const next: Subscription = {
        ...sub,
        status: sub.status === 'PAST_DUE' ? 'PAST_DUE' : 'ACTIVE_PENDING_CHANGE',
        scheduledChange: { offeringId: to.offering.id, requestedAt: now, kind, channel, usageLimits },
        version: sub.version + 1,
        updatedAt: deps.clock.now(),
      };
      await save(trx, ctx, next, sub);
      const payload = {
        change: kind,
        fromOfferingId: sub.offeringId,
        toOfferingId: to.offering.id,
        effectiveAt: toIso(q.effectiveAt),
        channel,
        reason: null,
        comment: null,
      };
      await recordAudit(trx, deps, ctx, { eventType: 'subscription.change_scheduled', targetType: 'subscription', targetId: sub.id, payload });
      await emitWebhookEvent(trx, deps, ctx, subscriptionEvent('subscription.change_scheduled', next, sub, payload));
      return { ...base, sub: next, scheduledAt: q.effectiveAt, effectiveAt: null };
    }

    const note = q.creditNoteAmount ? await creditUnusedTime(txDeps, ctx, q.paid.invoice!, q.creditNoteAmount, unusedTimeDescription(q), now) : null;
    const invoice =
      q.invoiceLines.length > 0
        ? await issueChangeInvoice(txDeps, ctx, {
            sub,
            cycleKey: `change:${now}`,
            billingReason: 'subscription_update',
            period: q.usagePeriod!,
            allowanceFrom: q.allowanceFrom,
            priceVersionId: sub.priceVersionId,
            lines: q.invoiceLines,
            at: now,
          })
        : null;
    const next: Subscription = {
      ...sub,
      status: sub.status === 'PAST_DUE' ? 'PAST_DUE' : 'ACTIVE',
      offeringId: to.offering.id,
      priceVersionId: await priceVersionFor(txDeps, ctx, to),
      billingPeriod: to.offering.billingPeriod as Subscription['billingPeriod'],
      billingAnchor: q.restarts ? now : sub.billingAnchor,
      currentPeriodStart: q.nextPeriod.start,
      currentPeriodEnd: q.nextPeriod.end,
      scheduledChange: null,
      usageLimits,
      version: sub.version + 1,
      updatedAt: deps.clock.now(),
    };
    const payload = {
      kind,
      applyAt,
      channel,
      fromOfferingId: sub.offeringId,
      toOfferingId: to.offering.id,
      effectiveAt: toIso(now),
      credit: q.credit,
      debit: q.debit,
      net: q.net,
      invoiceId: invoice?.id ?? null,
      creditNoteId: note?.id ?? null,
    };
    // Pay first: a charge today that Stripe collects (finalization scheduled it) waits for its
    // payment; the request charges it after this commit, and the change applies once it is paid.
    if (invoice && invoice.nextPaymentAttemptAt !== null && note === null) {
      await saveInvoice(trx, ctx, { ...invoice, nextPaymentAttemptAt: null });
      const waiting: Subscription = {
        ...sub,
        pendingUpdate: {
          invoiceId: invoice.id,
          offeringId: to.offering.id,
          priceVersionId: next.priceVersionId,
          billingPeriod: next.billingPeriod,
          billingAnchor: next.billingAnchor,
          currentPeriodStart: next.currentPeriodStart,
          currentPeriodEnd: next.currentPeriodEnd,
          usageLimits,
          kind,
          channel,
          requestedAt: now,
          expiresAt: now + PENDING_UPDATE_TTL_MS,
          details: payload,
        },
        version: sub.version + 1,
        updatedAt: deps.clock.now(),
      };
      await save(trx, ctx, waiting, sub);
      await recordAudit(trx, deps, ctx, { eventType: 'subscription.change_pending', targetType: 'subscription', targetId: sub.id, payload });
      await afterCommit(trx, () => deps.caches.clear(SUBSCRIPTIONS_CHANGED));
      return { ...base, sub: waiting, ...issued(invoice, null), scheduledAt: null, effectiveAt: null, paysFirst: true };
    }
    await save(trx, ctx, next, sub);
    await recordAudit(trx, deps, ctx, { eventType: changeEventType(kind), targetType: 'subscription', targetId: sub.id, payload });
    await emitWebhookEvent(trx, deps, ctx, subscriptionEvent(changeEventType(kind), next, sub, payload));
    await afterCommit(trx, () => deps.caches.clear(SUBSCRIPTIONS_CHANGED));
    return {
      ...base,
      sub: next,
      ...issued(invoice, note),
      scheduledAt: null,
      effectiveAt: now,
    };
  });
  return presentOutcome(outcome);
}

/**
 * Cancels now (the unused time credited on a credit note, the usage so far on a last invoice, the
 * keys revoked at once) or at the period end (the renewal cancels it then and revokes the keys).
 */
export async function cancelPlan(
  deps: Deps,
  ctx: OperationContext,
  id: string,
  input: CancelInput,
  channel: ChangeChannel,
  bound: BoundCredentials,
  billing: SubscriptionBilling,
): Promise<ChangeResult> {
  const applyAt = input.applyAt ?? 'IMMEDIATE';
  const request: CancelRequest = { reason: input.reason ?? null, cancel_channel: channel, comment: input.comment ?? null };
  const outcome = await inTransaction(deps.db, async (trx): Promise<Outcome> => {
    const txDeps: Deps = { ...deps, db: trx };
    const sub = await subscriptionToChange(trx, ctx, id, input.expectedVersion);
    if (sub.status === 'CANCELLED') throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${id}' is already CANCELLED.`);
    // Cancelling now supersedes whatever waits for the period end; cancelling then does not.
    if (applyAt === 'PERIOD_END') checkNothingPending(sub);
    const now = await timeOf(txDeps, ctx, sub.testClockId);
    const q = await quoteChange(txDeps, ctx, sub, { action: 'cancel' }, applyAt, now);
    const base = { action: 'CANCEL' as const, applyAt, channel, offeringName: q.from?.offering.name ?? null, scheduledAt: null };

    if (applyAt === 'PERIOD_END') {
      const next: Subscription = {
        ...sub,
        status: sub.status === 'PAST_DUE' ? 'PAST_DUE' : 'ACTIVE_PENDING_CHANGE',
        cancelAtPeriodEnd: true,
        cancellationDetails: { ...request, requestedAt: now },
        version: sub.version + 1,
        updatedAt: deps.clock.now(),
      };
      await save(trx, ctx, next, sub);
      const { reason, comment } = request;
      const payload = { change: 'CANCEL', fromOfferingId: sub.offeringId, toOfferingId: null, effectiveAt: toIso(q.effectiveAt), channel, reason, comment };
      await recordAudit(trx, deps, ctx, { eventType: 'subscription.change_scheduled', targetType: 'subscription', targetId: sub.id, payload });
      await emitWebhookEvent(trx, deps, ctx, subscriptionEvent('subscription.change_scheduled', next, sub, payload));
      return { ...base, sub: next, ...NOTHING_ISSUED, effectiveAt: q.effectiveAt };
    }

    const note = q.creditNoteAmount ? await creditUnusedTime(txDeps, ctx, q.paid.invoice!, q.creditNoteAmount, unusedTimeDescription(q), now) : null;
    const { subscription } = await cancelSubscription(txDeps, ctx, id, bound, billing, request, { creditNoteId: note?.id ?? null });
    const [last] = await findInvoicesByCycleKeys(trx, ctx, id, [`cancel:${now}`], false);
    return { ...base, sub: subscription, ...issued(last, note), effectiveAt: now };
  });
  deps.caches.clear(SUBSCRIPTIONS_CHANGED);
  return presentOutcome(outcome);
}

/** Withdraws the change or cancellation waiting for the period end: the subscription is ACTIVE as before. */
export async function withdrawChange(deps: Deps, ctx: OperationContext, id: string, channel: ChangeChannel): Promise<Subscription> {
  return inTransaction(deps.db, async (trx) => {
    const sub = await findSubscription(trx, ctx, id);
    if (!sub) throw notFound('subscription', id);
    if (!sub.scheduledChange && !sub.cancelAtPeriodEnd) {
      throw new AppError('CONFLICT', `Subscription '${id}' has no change or cancellation scheduled for its period end.`);
    }
    const next: Subscription = {
      ...sub,
      status: sub.status === 'PAST_DUE' ? 'PAST_DUE' : 'ACTIVE',
      scheduledChange: null,
      cancelAtPeriodEnd: false,
      // A withdrawn cancellation was never made.
      cancellationDetails: null,
      version: sub.version + 1,
      updatedAt: deps.clock.now(),
    };
    await save(trx, ctx, next, sub);
    const payload = {
      withdrawn: sub.scheduledChange
        ? { change: sub.scheduledChange.kind ?? 'CHANGE', toOfferingId: sub.scheduledChange.offeringId }
        : { change: 'CANCEL', toOfferingId: null },
      channel,
    };
    await recordAudit(trx, deps, ctx, { eventType: 'subscription.change_withdrawn', targetType: 'subscription', targetId: id, payload });
    await emitWebhookEvent(trx, deps, ctx, subscriptionEvent('subscription.change_withdrawn', next, sub, payload));
    return next;
  });
}

/**
 * The payment of a change that pays first, made after the change's transaction committed (never
 * inside one: Stripe is called over the network): what the result then says (the payment, the
 * status, when it took effect) and the subscription as it stands: changed when the payment
 * succeeded (collect-invoice.ts applies a subscription's pending update when its invoice is paid,
 * whoever brings the payment), still waiting otherwise. null when nothing is to be paid first.
 */
export async function settleChangePayment(
  deps: Deps,
  c: Collection,
  ctx: OperationContext,
  result: Pick<ChangeResult, 'payment' | 'invoiceId' | 'subscriptionId'>,
  returnUrl: string | null,
): Promise<{ fields: Pick<ChangeResult, 'status' | 'effectiveAt' | 'payment'>; subscription: Subscription } | null> {
  if (result.payment?.status !== 'pending' || result.invoiceId === null) return null;
  const r = await collectInvoice(deps, c, ctx, result.invoiceId, { trigger: 'plan_change', origin: ctx, returnUrl });
  const sub = (await findSubscription(deps.db, ctx, result.subscriptionId))!;
  const applied = sub.pendingUpdate === null && r.payment?.status === 'succeeded';
  return {
    fields: {
      status: sub.status,
      effectiveAt: applied ? toIso(await timeOf(deps, ctx, sub.testClockId)) : null,
      payment: {
        status: r.payment?.status ?? 'pending',
        failureCode: r.payment?.failureCode ?? null,
        failureMessage: r.payment?.failureMessage ?? null,
        actionUrl: r.payment?.actionUrl ?? null,
      },
    },
    subscription: sub,
  };
}
