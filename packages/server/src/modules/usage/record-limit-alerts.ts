import type { StorageDeps } from '../../deps.js';
import { toIso } from '../../lib/clock.js';
import { Decimal, ExactSum } from '../../lib/money.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { periodAt, type UsageLimit, type UsageLimitOverride } from '../subscriptions/subscription.js';
import { findActiveAlertSubscriptions, type AlertSubscriptionRow } from '../subscriptions/subscription.repository.js';
import type { BillingPeriod } from '../../lib/periods.js';
import type { PeriodAlignment } from '@tollgate/pricing';
import type { AggregateDelta, ResolvedEvent } from './aggregate-batch.js';
import { edgeCacheOf, readPeriodUsage } from './period-usage.js';

/**
 * The active subscriptions with ALERT limits among a batch's customers. Read before the batch
 * adds to the aggregates, so that on PostgreSQL the aggregate rows stay locked as briefly as
 * possible (every batch of a customer waits for them).
 */
export async function findAlertSubscriptions(deps: StorageDeps, ctx: OperationContext, deltas: readonly AggregateDelta[]): Promise<AlertSubscriptionRow[]> {
  const customerIds = [...new Set(deltas.map((d) => d.customerId))];
  if (customerIds.length === 0) return [];
  return findActiveAlertSubscriptions(deps.db, ctx, customerIds);
}

/**
 * ALERT limits allow usage past them and warn once per period: the batch that takes a period's
 * usage from at most the limit to above it writes one WARN audit event and one usage.limit_alert
 * webhook message (the usage_limit_alert object: subscription, customer, metric, limit, usage as
 * decimal text, period), in the same transaction.
 * Runs after the batch is added to the hourly rows (their rows are then locked by this
 * transaction, so the usage read here is exact): usage over exactly [periodStart, periodEnd), and
 * what the batch added to it counted from its events, by their instants. Usage only grows, so
 * each limit crosses at most once per period, and entitlement checks stay read-only.
 */
export async function recordLimitAlerts(
  deps: StorageDeps,
  ctx: OperationContext,
  subs: readonly AlertSubscriptionRow[],
  events: readonly ResolvedEvent[],
): Promise<number> {
  let recorded = 0;
  for (const sub of subs) {
    // The subscription's own ALERT limits (an entry with limit null has none); its rate plans'
    // ALERT defaults are not read on this path (they show in entitlement checks only).
    const limits = (JSON.parse(sub.usageLimits) as UsageLimitOverride[]).filter((l): l is UsageLimit => l.limit !== null && l.enforcement === 'ALERT');
    const period = periodAt(
      { ...sub, billingPeriod: sub.billingPeriod as BillingPeriod, periodAlignment: sub.periodAlignment as PeriodAlignment },
      deps.clock.now(),
    );
    const limited = new Set(limits.map((l) => l.metricName));
    const added = new Map<string, ExactSum>();
    for (const e of events) {
      if (e.customerId !== sub.customerId || !limited.has(e.metricName) || e.occurredAt < period.start || e.occurredAt >= period.end) continue;
      let sum = added.get(e.metricName);
      if (!sum) added.set(e.metricName, (sum = new ExactSum()));
      sum.add(e.quantityText);
    }
    if (added.size === 0) continue;
    const usage = await readPeriodUsage(deps.db, deps.dialect, edgeCacheOf(deps), ctx, sub.customerId, period, []);
    for (const limit of limits) {
      const sum = added.get(limit.metricName);
      if (!sum) continue;
      const after = new Decimal(usage.get(limit.metricName)?.quantity ?? 0);
      const before = after.minus(sum.text());
      if (before.lte(limit.limit) && after.gt(limit.limit)) {
        const payload = {
          metricName: limit.metricName,
          limit: limit.limit,
          usage: after.toFixed(),
          periodStart: toIso(period.start),
          periodEnd: toIso(period.end),
        };
        await recordAudit(deps.db, deps, ctx, { eventType: 'usage.limit_alert', severity: 'WARN', targetType: 'subscription', targetId: sub.id, payload });
        await emitWebhookEvent(deps.db, deps, ctx, {
          type: 'usage.limit_alert',
          orderingKey: sub.id,
          data: { object: { object: 'usage_limit_alert', subscriptionId: sub.id, customerId: sub.customerId, ...payload, enforcement: 'ALERT' } },
        });
        recorded += 1;
      }
    }
  }
  return recorded;
}
