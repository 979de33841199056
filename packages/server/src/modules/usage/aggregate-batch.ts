import { Decimal, decimalAdd } from '../../lib/money.js';
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
      g = {
        delta: { customerId: e.customerId, metricName: e.metricName, periodStart: e.periodStart, dimension: e.dimension, sum: '0', count: 0 },
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
 * Pure: the rows a batch adds to usage_aggregates. The TOTAL ('') row of each (customer, metric,
 * month) takes the sum of all its deltas; a delta of a rating dimension also goes to its own row.
 * Events without a dimension have the TOTAL key already, so a batch without dimensions adds one
 * row per group, as it always did.
 */
export function withTotalRows(deltas: readonly AggregateDelta[]): AggregateDelta[] {
  const totals = new Map<string, AggregateDelta>();
  const shares: AggregateDelta[] = [];
  for (const d of deltas) {
    if (d.dimension !== TOTAL) shares.push({ ...d });
    const key = `${d.customerId}\u0000${d.metricName}\u0000${d.periodStart}`;
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
