import type { Db } from '../../db/database.js';
import { numberToDecimal } from '../../lib/money.js';
import { addMonthsUtc, monthStart } from '../../lib/periods.js';
import type { Tenant } from '../tenancy/tenant.js';
import type { ResolvedEvent } from './aggregate-batch.js';
import { dimensionKeyOf } from './rating-dimension.js';
import { checkEventShape, isRejection, type ShapeRules } from './check-event-shape.js';
import { findMetricNames, listMetricNames, resolveCustomerRefs } from './usage.repository.js';
import type { CheckedEvent, EventRejection } from './usage-event.js';

export interface CheckedBatch {
  /** In batch order, for the events that passed every check. */
  resolved: ResolvedEvent[];
  /** Sorted by index. */
  rejected: EventRejection[];
}

/** A known metric that differs only in case or separators, to say "did you mean". */
function suggestion(name: string, known: string[]): string {
  const norm = (s: string) => s.toLowerCase().replace(/[-_.:]/g, '');
  const match = known.find((k) => norm(k) === norm(name));
  return match ? ` Did you mean '${match}'? Names match exactly.` : '';
}

/**
 * Checks every event of a batch: its shape (pure), then its customer and metric (two queries for
 * the whole batch). Metric names must match exactly: a misspelt name is refused, never counted
 * under a new name.
 */
export async function checkBatch(
  db: Db,
  tenant: Tenant,
  raw: readonly unknown[],
  rules: ShapeRules,
  at: (index: number) => string,
): Promise<CheckedBatch> {
  const rejected: EventRejection[] = [];
  const shaped: Array<{ index: number; event: CheckedEvent }> = [];
  raw.forEach((r, index) => {
    const v = checkEventShape(r, index, at(index), rules);
    if (isRejection(v)) rejected.push(v);
    else shaped.push({ index, event: v });
  });
  const customers = await resolveCustomerRefs(db, tenant, [...new Set(shaped.map((s) => s.event.customerRef))]);
  const metrics = await findMetricNames(db, tenant, [...new Set(shaped.map((s) => s.event.metricName))]);
  let allMetricNames: string[] | null = null;
  const resolved: ResolvedEvent[] = [];
  // Most events of a batch fall in one month: reuse its bounds instead of computing a calendar
  // date per event.
  let month = { start: 0, end: -1 };
  const monthOf = (t: number) => {
    if (t < month.start || t >= month.end) month = { start: monthStart(t), end: addMonthsUtc(monthStart(t), 1) };
    return month.start;
  };
  for (const { index, event } of shaped) {
    const customerId = customers.get(event.customerRef);
    if (customerId === undefined) {
      rejected.push({
        index,
        code: 'UNKNOWN_CUSTOMER',
        field: `${at(index)}.customerId`,
        message: `${at(index)}.customerId: no customer with id or externalId '${event.customerRef}' exists in this environment.`,
      });
      continue;
    }
    if (!metrics.has(event.metricName)) {
      allMetricNames ??= await listMetricNames(db, tenant);
      rejected.push({
        index,
        code: 'UNKNOWN_METRIC',
        field: `${at(index)}.metricName`,
        message: `${at(index)}.metricName: '${event.metricName}' is not a billable metric of this workspace and environment.${suggestion(event.metricName, allMetricNames)}`,
      });
      continue;
    }
    resolved.push({
      customerId,
      metricName: event.metricName,
      quantity: event.quantity,
      quantityText: numberToDecimal(event.quantity),
      occurredAt: event.occurredAt,
      periodStart: monthOf(event.occurredAt),
      eventId: event.eventId,
      metadata: event.metadata === null ? null : JSON.stringify(event.metadata),
      dimension: dimensionKeyOf(event.metadata),
    });
  }
  rejected.sort((a, b) => a.index - b.index);
  return { resolved, rejected };
}
