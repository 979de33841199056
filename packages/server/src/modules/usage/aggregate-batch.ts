import { Decimal, decimalAdd } from '../../lib/money.js';

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
  periodStart: number;
  dimension: string;
  /** Exact decimal text. */
  sum: string;
  count: number;
}

/**
 * Pure: sums a batch per (customer, metric, calendar month, rating dimension) so the write path upserts one row
 * per group instead of one per event. Integer quantities add as numbers while exact (below 2^53);
 * anything else adds in decimal, so a sum is never rounded.
 */
export function aggregateBatch(events: readonly ResolvedEvent[]): AggregateDelta[] {
  const groups = new Map<string, { delta: AggregateDelta; int: number; dec: InstanceType<typeof Decimal> | null }>();
  for (const e of events) {
    const key = `${e.customerId}\u0000${e.metricName}\u0000${e.periodStart}\u0000${e.dimension}`;
    let g = groups.get(key);
    if (!g) {
      g = { delta: { customerId: e.customerId, metricName: e.metricName, periodStart: e.periodStart, dimension: e.dimension, sum: '0', count: 0 }, int: 0, dec: null };
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

/** A batch's addition to one (customer, metric, calendar month) total, over every rating dimension. */
export type TotalDelta = Omit<AggregateDelta, 'dimension'>;

/** Pure: the deltas summed over their rating dimensions, exactly: what usage_totals adds. */
export function totalsOf(deltas: readonly AggregateDelta[]): TotalDelta[] {
  const totals = new Map<string, TotalDelta>();
  for (const d of deltas) {
    const key = `${d.customerId}\u0000${d.metricName}\u0000${d.periodStart}`;
    const t = totals.get(key);
    if (t) {
      t.sum = decimalAdd(t.sum, d.sum);
      t.count += d.count;
    } else {
      totals.set(key, { customerId: d.customerId, metricName: d.metricName, periodStart: d.periodStart, sum: d.sum, count: d.count });
    }
  }
  return [...totals.values()];
}
