import type { Db } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import { numberToDecimal } from '../../lib/money.js';
import { addMonthsUtc, monthStart } from '../../lib/periods.js';
import type { Tenant } from '../../lib/tenant.js';
import type { ResolvedEvent } from './aggregate-batch.js';
import { dimensionKeyOf, dimensionReaderOf, type DimensionReader } from './rating-dimension.js';
import { checkEventShape, isRejection, listEventProblems, type RefChecks, type ShapeRules } from './check-event-shape.js';
import { findClockedCustomers, resolveCustomerRefs } from '../customers/customer.repository.js';
import { findTestClockTimes } from '../test-clocks/test-clock.repository.js';
import { findMetricNames, listMetricNames } from '../metrics/metric.repository.js';
import { MAX_BATCH_EVENTS, type CheckedEvent, type EventRejection } from './usage-event.js';

export interface CheckedBatch {
  /** In batch order, for the events that passed every check. */
  resolved: ResolvedEvent[];
  /**
   * Every problem of every rejected event, by index then field order: at most
   * MAX_PROBLEMS_PER_EVENT per event and MAX_REPORTED_PROBLEMS in all (see capProblems).
   */
  rejected: EventRejection[];
}

/** As many as a batch has events, so a refused batch's answer is no larger than before. */
export const MAX_REPORTED_PROBLEMS = MAX_BATCH_EVENTS;

/** A known metric that differs only in case or separators, to say "did you mean". */
function suggestion(name: string, known: string[]): string {
  const norm = (s: string) => s.toLowerCase().replace(/[-_.:]/g, '');
  const match = known.find((k) => norm(k) === norm(name));
  return match ? ` Did you mean '${match}'? Names match exactly.` : '';
}

/** A customerId or metricName sent as usable text (otherwise its shape problem is reported). */
function refOf(raw: unknown, field: 'customerId' | 'metricName'): string | null {
  const v = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[field] : undefined;
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/**
 * Pure: keeps the first problem of every rejected event (a batch has at most 1,000), then the
 * others in index order while the total stays within `max`.
 */
export function capProblems(perEvent: readonly EventRejection[][], max = MAX_REPORTED_PROBLEMS): EventRejection[] {
  let extra = max - perEvent.length;
  const out: EventRejection[] = [];
  for (const problems of perEvent) {
    const rest = extra > 0 ? problems.slice(1, 1 + extra) : [];
    extra -= rest.length;
    out.push(problems[0]!, ...rest);
  }
  return out;
}

/**
 * Checks every event of a batch: its shape (pure), then its customer and metric (two queries for
 * the whole batch). Metric names must match exactly: a misspelt name is refused, never counted
 * under a new name. The accepting path stops at an event's first problem; only when some event
 * is rejected are the rejected ones inspected again for all their problems.
 */
export async function checkBatch(db: Db, tenant: Tenant, raw: readonly unknown[], rules: ShapeRules, at: (index: number) => string): Promise<CheckedBatch> {
  const rejectedAt: number[] = [];
  const shaped: Array<{ index: number; event: CheckedEvent }> = [];
  raw.forEach((r, index) => {
    const v = checkEventShape(r, index, at(index), rules);
    if (isRejection(v)) rejectedAt.push(index);
    else shaped.push({ index, event: v });
  });
  const customerRefs = new Set(shaped.map((s) => s.event.customerRef));
  const metricNames = new Set(shaped.map((s) => s.event.metricName));
  // A malformed event may still name an unknown customer or metric: look those up too.
  for (const index of rejectedAt) {
    const customerRef = refOf(raw[index], 'customerId');
    const metricName = refOf(raw[index], 'metricName');
    if (customerRef !== null) customerRefs.add(customerRef);
    if (metricName !== null) metricNames.add(metricName);
  }
  const customers = await resolveCustomerRefs(db, tenant, [...customerRefs]);
  if (rejectedAt.length > 0 && tenant.environment === 'test') await admitOnTestClocks(db, tenant, raw, rules, at, customers, rejectedAt, shaped);
  const metrics = await findMetricNames(db, tenant, [...metricNames]);
  const readers = new Map<string, DimensionReader>();
  const readerOf = (metricName: string) => {
    let r = readers.get(metricName);
    if (!r) readers.set(metricName, (r = dimensionReaderOf(metrics.get(metricName)!)));
    return r;
  };
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
    if (customerId === undefined || !metrics.has(event.metricName)) {
      rejectedAt.push(index);
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
      dimension: dimensionKeyOf(event.metadata, readerOf(event.metricName)),
    });
  }
  if (rejectedAt.length === 0) return { resolved, rejected: [] };
  const allMetricNames = [...metricNames].some((n) => !metrics.has(n)) ? await listMetricNames(db, tenant) : [];
  const refs: RefChecks = {
    customer: (ref) => (customers.has(ref) ? null : `'${ref}' is neither the id nor the externalId of a customer in this environment.`),
    metric: (name) => (metrics.has(name) ? null : `'${name}' is not a billable metric of this workspace and environment.${suggestion(name, allMetricNames)}`),
  };
  rejectedAt.sort((a, b) => a - b);
  return { resolved, rejected: capProblems(rejectedAt.map((index) => listEventProblems(raw[index], index, at(index), rules, refs))) };
}

/**
 * A customer on a test clock lives in the clock's time, so its events' occurredAt is checked
 * against the clock (35 days back, 5 minutes ahead of it), not against real time. Only events
 * already rejected are looked at again, so a batch without rejections pays nothing for this.
 */
async function admitOnTestClocks(
  db: Db,
  tenant: Tenant,
  raw: readonly unknown[],
  rules: ShapeRules,
  at: (index: number) => string,
  customers: ReadonlyMap<string, string>,
  rejectedAt: number[],
  shaped: Array<{ index: number; event: CheckedEvent }>,
): Promise<void> {
  const customerOf = (index: number) => {
    const ref = refOf(raw[index], 'customerId');
    return ref === null ? undefined : customers.get(ref);
  };
  const candidates = [...new Set(rejectedAt.map(customerOf).filter((id): id is string => id !== undefined))];
  const clocked = await findClockedCustomers(db, tenant, candidates);
  if (clocked.size === 0) return;
  const times = await findTestClockTimes(db, tenant, [...new Set(clocked.values())]);
  const still: number[] = [];
  for (const index of rejectedAt) {
    const clockId = clocked.get(customerOf(index) ?? '');
    const now = clockId === undefined ? undefined : times.get(clockId);
    const v = now === undefined ? null : checkEventShape(raw[index], index, at(index), { ...rules, now });
    if (v === null || isRejection(v)) still.push(index);
    else shaped.push({ index, event: v });
  }
  rejectedAt.splice(0, rejectedAt.length, ...still);
  shaped.sort((a, b) => a.index - b.index);
}

/** Thrown when any event is rejected: the batch is refused whole and nothing is written. */
export function rejectedBatch(rejected: EventRejection[]): AppError {
  // One entry per problem, and an event may have several.
  const n = new Set(rejected.map((r) => r.index)).size;
  return new AppError('VALIDATION_FAILED', `${n} event${n === 1 ? ' was' : 's were'} rejected; nothing was stored.`, {
    details: rejected.map((r) => ({ code: r.code, message: r.message, field: r.field, index: r.index })),
  });
}
