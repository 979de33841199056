import { Decimal, decimalAdd } from '../../lib/money.js';
import { hourStart, monthStart } from '../../lib/periods.js';
import { TOTAL } from './rating-dimension.js';

/** An accepted event, ready to store: customer resolved, period computed. */
export interface ResolvedEvent {
  customerId: string;
  metricName: string;
  quantity: number;
  /** Exact decimal text of quantity. */
  quantityText: string;
  occurredAt: number;
  periodStart: number;
  eventId: string | null;
  metadata: string | null;
  /** Rating dimension key (see rating-dimension.ts); '' for most events. */
  dimension: string;
}

export interface AggregateDelta {
  customerId: string;
  metricName: string;
  /** Start of the UTC hour of the events (lib/periods.ts hourStart). */
  hourStart: number;
  dimension: string;
  /** Exact decimal text. */
  sum: string;
  count: number;
}

/** A batch's addition to one monthly total row of usage_aggregates. */
export interface MonthTotalDelta {
  customerId: string;
  metricName: string;
  /** Start of the UTC calendar month. */
  periodStart: number;
  /** Exact decimal text. */
  sum: string;
  count: number;
}

/**
 * Pure: sums a batch per (customer, metric, UTC hour, rating dimension) so the write path upserts one row
 * per group instead of one per event. Integer quantities add as numbers while exact (below 2^53);
 * anything else adds in decimal, so a sum is never rounded.
 */
export function aggregateBatch(events: readonly ResolvedEvent[]): AggregateDelta[] {
  const groups = new Map<string, { delta: AggregateDelta; int: number; dec: InstanceType<typeof Decimal> | null }>();
  for (const e of events) {
    const hour = hourStart(e.occurredAt);
    const key = `${e.customerId}\u0000${e.metricName}\u0000${hour}\u0000${e.dimension}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        delta: { customerId: e.customerId, metricName: e.metricName, hourStart: hour, dimension: e.dimension, sum: '0', count: 0 },
        int: 0,
        dec: null,
      };
      groups.set(key, g);
    }
    g.delta.count += 1;
    if (g.dec === null && Number.isInteger(e.quantity) && Number.isSafeInteger(g.int + e.quantity)) g.int += e.quantity;
    else g.dec = (g.dec ?? new Decimal(g.int)).plus(e.quantityText);
  }
  const out: AggregateDelta[] = [];
  for (const g of groups.values()) {
    g.delta.sum = g.dec === null ? String(g.int) : g.dec.toFixed();
    out.push(g.delta);
  }
  return out;
}

/**
 * Pure: the rows a batch adds to usage_hourly. The TOTAL ('') row of each (customer, metric,
 * hour) takes the sum of all its deltas; a delta of a rating dimension also goes to its own row.
 * Events without a dimension have the TOTAL key already, so a batch without dimensions adds one
 * row per group.
 */
export function withTotalRows(deltas: readonly AggregateDelta[]): AggregateDelta[] {
  const totals = new Map<string, AggregateDelta>();
  const shares: AggregateDelta[] = [];
  for (const d of deltas) {
    if (d.dimension !== TOTAL) shares.push({ ...d });
    const key = `${d.customerId}\u0000${d.metricName}\u0000${d.hourStart}`;
    const t = totals.get(key);
    if (t) {
      t.sum = decimalAdd(t.sum, d.sum);
      t.count += d.count;
    } else {
      totals.set(key, { ...d, dimension: TOTAL });
    }
  }
  return [...totals.values(), ...shares];
}

/**
 * Pure: what a batch adds to the monthly total rows of usage_aggregates (what the usage report
 * reads): the hourly deltas of every dimension, summed per (customer, metric, calendar month).
 */
export function monthTotals(deltas: readonly AggregateDelta[]): MonthTotalDelta[] {
  const totals = new Map<string, MonthTotalDelta>();
  for (const d of deltas) {
    const periodStart = monthStart(d.hourStart);
    const key = `${d.customerId}\u0000${d.metricName}\u0000${periodStart}`;
    const t = totals.get(key);
    if (t) {
      t.sum = decimalAdd(t.sum, d.sum);
      t.count += d.count;
    } else {
      totals.set(key, { customerId: d.customerId, metricName: d.metricName, periodStart, sum: d.sum, count: d.count });
    }
  }
  return [...totals.values()];
}
