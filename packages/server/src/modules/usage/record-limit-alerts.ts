import type { StorageDeps } from '../../deps.js';
import { toIso } from '../../lib/clock.js';
import { Decimal } from '../../lib/money.js';
import { monthStartsOverlapping } from '../../lib/periods.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { periodAt, type UsageLimit } from '../subscriptions/subscription.js';
import { findActiveAlertSubscriptions, type AlertSubscriptionRow } from '../subscriptions/subscription.repository.js';
import type { BillingPeriod } from '../../lib/periods.js';
import type { PeriodAlignment } from '@tollgate/pricing';
import type { AggregateDelta } from './aggregate-batch.js';
import { readCustomerTotals } from './usage-totals.repository.js';

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
 * usage from at most the limit to above it writes one WARN audit event, in the same transaction.
 * Runs after the batch's totals are added (their rows are then locked by this transaction, so
 * the totals read here are exact). Usage only grows, so each limit crosses at most once per
 * period, and entitlement checks stay read-only.
 */
export async function recordLimitAlerts(
  deps: StorageDeps,
  ctx: OperationContext,
  subs: readonly AlertSubscriptionRow[],
  deltas: readonly AggregateDelta[],
): Promise<number> {
  let recorded = 0;
  for (const sub of subs) {
    const limits = (JSON.parse(sub.usageLimits) as UsageLimit[]).filter((l) => l.enforcement === 'ALERT');
    const period = periodAt(
      { ...sub, billingPeriod: sub.billingPeriod as BillingPeriod, periodAlignment: sub.periodAlignment as PeriodAlignment },
      deps.clock.now(),
    );
    const months = new Set(monthStartsOverlapping(period.start, period.end));
    for (const limit of limits) {
      const inPeriod = deltas.filter((d) => d.customerId === sub.customerId && d.metricName === limit.metricName && months.has(d.periodStart));
      if (inPeriod.length === 0) continue;
      const added = inPeriod.reduce((acc, d) => acc.plus(d.sum), new Decimal(0));
      const rows = await readCustomerTotals(deps.db, ctx, sub.customerId, [...months]);
      const after = rows.filter((r) => r.metricName === limit.metricName).reduce((acc, r) => acc.plus(r.quantitySum), new Decimal(0));
      const before = after.minus(added);
      if (before.lte(limit.limit) && after.gt(limit.limit)) {
        await recordAudit(deps.db, deps, ctx, {
          eventType: 'usage.limit_alert',
          severity: 'WARN',
          targetType: 'subscription',
          targetId: sub.id,
          payload: {
            metricName: limit.metricName,
            limit: limit.limit,
            usage: after.toFixed(),
            periodStart: toIso(period.start),
            periodEnd: toIso(period.end),
          },
        });
        recorded += 1;
      }
    }
  }
  return recorded;
}
