import type { Db, DialectName } from '../../db/database.js';
import type { Deps, StorageDeps } from '../../deps.js';
import { cacheSpec } from '../../lib/caches.js';
import type { Clock } from '../../lib/clock.js';
import { Decimal, ExactSum, type Money } from '../../lib/money.js';
import { hourStart } from '../../lib/periods.js';
import type { Tenant } from '../../lib/tenant.js';
import { TtlCache } from '../../lib/ttl-cache.js';
import { planTotalParts } from './period-total-parts.js';
import { readHourCounts, sumHourlyShares, sumTotalParts, type HourCount } from './usage-hourly.repository.js';
import { dimensionKeyOf, dimensionReaderOf, NO_DIMENSION, type DimensionReader } from './rating-dimension.js';
import type { MetadataValue } from './usage-event.js';
import { readCustomerEvents } from './usage.repository.js';
import { findMetricNames } from '../metrics/metric.repository.js';

/**
 * A customer's usage over exactly [start, end), to the millisecond, for any instants: what rates
 * an anniversary billing period and what its limits count.
 *
 * With H(t) the start of t's UTC hour, usage over [start, end) is
 *
 *   the totals of the hours in [H(start), H(end))  -  raw [H(start), start)  +  raw [H(end), end)
 *
 * where "raw [h, t)" is the customer's events from an hour's start to an edge that is not on the
 * hour (absent when it is). The totals of whole hours come, month by month, from the monthly total
 * row (usage_aggregates) less the hours of its month outside the period when the period covers
 * more than half of that month, else from the hourly total rows of the hours covered
 * (planTotalParts): a month costs at most half a month of hourly rows, a whole month one row per
 * metric. Every part is summed by the database in one statement (a row per metric and part, one
 * snapshot) and the signed parts added exactly here. Dimension shares have no monthly rows: they
 * are summed from the hourly rows of [H(start), H(end)), for the metrics priced by them only.
 * An edge is one customer's events of less than an hour, read through the tenant time index and
 * kept on this node (periodEdgeCache) together with its hour's event counts, which are read again,
 * with one small query, every time: an event arriving late in that hour changes them, and the
 * edge is read afresh. An hour without events (the end of a period still to come) costs no read
 * at all.
 */

export interface UsageShare {
  /** Exact decimal text. */
  quantity: string;
  events: number;
}

export interface MetricUsage extends UsageShare {
  /** By rating dimension key (never TOTAL): filled only for the metrics asked for. */
  dimensions: Map<string, UsageShare>;
}

/** Per metric name; a metric without events in the period is absent. */
export type PeriodUsage = Map<string, MetricUsage>;

/** A raw edge [hour start, edge) as cached: valid while its hour's counts are `counts`. */
export interface EdgeUsage {
  counts: string;
  /** Whether the dimension shares of every metric were computed (else none were). */
  withDimensions: boolean;
  usage: PeriodUsage;
}

/**
 * Raw edges of billing periods, by tenant, customer and instant. Entries are checked against the
 * database at every use, so nothing needs to clear them; the TTL only bounds what a period edge
 * nobody asks about any more keeps in memory.
 */
export const periodEdgeCache = cacheSpec<EdgeUsage>({
  name: 'usage period edges',
  ttlMs: () => EDGE_TTL_MS,
  maxEntries: 20_000,
  channels: [],
});
const EDGE_TTL_MS = 15 * 60_000;

export type EdgeCache = Pick<TtlCache<EdgeUsage>, 'get' | 'set' | 'generation'>;

// The SQLite writer thread has no Caches (StorageDeps): it keeps its own, one per clock (thread).
const threadEdgeCaches = new WeakMap<Clock, TtlCache<EdgeUsage>>();

/** The edge cache of these deps: the node's registered one, or the writer thread's own. */
export function edgeCacheOf(deps: StorageDeps & Partial<Pick<Deps, 'caches'>>): EdgeCache {
  if (deps.caches) return deps.caches.of(periodEdgeCache);
  let cache = threadEdgeCaches.get(deps.clock);
  if (!cache) threadEdgeCaches.set(deps.clock, (cache = new TtlCache<EdgeUsage>(deps.clock, EDGE_TTL_MS, 2_000)));
  return cache;
}

export interface Period {
  start: number;
  /** Exclusive. */
  end: number;
}

/** Signed parts of a period's usage, added exactly. */
class UsageTotal {
  private readonly metrics = new Map<string, { quantity: Money; events: number; dimensions: Map<string, { quantity: Money; events: number }> }>();

  constructor(private readonly dimensionMetrics: ReadonlySet<string>) {}

  add(sign: 1 | -1, metricName: string, dimension: string, quantity: string, events: number): void {
    if (dimension !== NO_DIMENSION && !this.dimensionMetrics.has(metricName)) return;
    let m = this.metrics.get(metricName);
    if (!m) this.metrics.set(metricName, (m = { quantity: new Decimal(0), events: 0, dimensions: new Map() }));
    let target: { quantity: Money; events: number } = m;
    if (dimension !== NO_DIMENSION) {
      let d = m.dimensions.get(dimension);
      if (!d) m.dimensions.set(dimension, (d = { quantity: new Decimal(0), events: 0 }));
      target = d;
    }
    target.quantity = sign === 1 ? target.quantity.plus(quantity) : target.quantity.minus(quantity);
    target.events += sign * events;
  }

  addUsage(sign: 1 | -1, usage: PeriodUsage): void {
    for (const [metricName, m] of usage) {
      this.add(sign, metricName, NO_DIMENSION, m.quantity, m.events);
      for (const [dimension, d] of m.dimensions) this.add(sign, metricName, dimension, d.quantity, d.events);
    }
  }

  result(): PeriodUsage {
    const out: PeriodUsage = new Map();
    for (const [metricName, m] of this.metrics) {
      if (m.events === 0) continue;
      const dimensions = new Map<string, UsageShare>();
      for (const [k, d] of m.dimensions) if (d.events !== 0) dimensions.set(k, { quantity: d.quantity.toFixed(), events: d.events });
      out.set(metricName, { quantity: m.quantity.toFixed(), events: m.events, dimensions });
    }
    return out;
  }
}

/**
 * Pure: the sums of stored events per metric and, given each metric's dimension reader, per
 * dimension share (read at the metric's paths, as ingestion summed them; a metric without a reader
 * has no shares).
 */
export function sumEvents(
  events: readonly { metricName: string; quantity: string; metadata: string | null }[],
  dimensions: ReadonlyMap<string, DimensionReader> | null,
): PeriodUsage {
  const sums = new Map<string, { total: ExactSum; events: number; dimensions: Map<string, { sum: ExactSum; events: number }> }>();
  for (const e of events) {
    let m = sums.get(e.metricName);
    if (!m) sums.set(e.metricName, (m = { total: new ExactSum(), events: 0, dimensions: new Map() }));
    m.total.add(e.quantity);
    m.events += 1;
    const reader = dimensions?.get(e.metricName);
    if (reader === undefined || e.metadata === null) continue;
    const key = dimensionKeyOf(JSON.parse(e.metadata) as Record<string, MetadataValue>, reader);
    if (key === NO_DIMENSION) continue;
    let d = m.dimensions.get(key);
    if (!d) m.dimensions.set(key, (d = { sum: new ExactSum(), events: 0 }));
    d.sum.add(e.quantity);
    d.events += 1;
  }
  const out: PeriodUsage = new Map();
  for (const [metricName, m] of sums) {
    const dimensions = new Map<string, UsageShare>();
    for (const [k, d] of m.dimensions) dimensions.set(k, { quantity: d.sum.text(), events: d.events });
    out.set(metricName, { quantity: m.total.text(), events: m.events, dimensions });
  }
  return out;
}

/** Where each metric of these events keeps its dimensions (its paths, as ingestion read them). */
async function dimensionReadersOf(db: Db, tenant: Tenant, events: readonly { metricName: string }[]): Promise<Map<string, DimensionReader>> {
  const paths = await findMetricNames(db, tenant, [...new Set(events.map((e) => e.metricName))]);
  return new Map([...paths].map(([name, p]) => [name, dimensionReaderOf(p)]));
}

/** Pure: an hour's counts as one comparable text ('' when the hour has no events). */
export function countsSignature(counts: readonly HourCount[], hour: number): string {
  return counts
    .filter((c) => c.hourStart === hour && c.events > 0)
    .map((c) => `${c.metricName}\u0000${c.events}`)
    .sort()
    .join('\u0001');
}

/** Pure: where a period's usage comes from (see the comment at the top). */
export function periodParts(period: Period): { fromHour: number; toHour: number; edges: Array<{ hour: number; edge: number; sign: 1 | -1 }> } {
  const fromHour = hourStart(period.start);
  const toHour = hourStart(period.end);
  const edges: Array<{ hour: number; edge: number; sign: 1 | -1 }> = [];
  if (period.start !== fromHour) edges.push({ hour: fromHour, edge: period.start, sign: -1 });
  if (period.end !== toHour) edges.push({ hour: toHour, edge: period.end, sign: 1 });
  return { fromHour, toHour, edges };
}

/**
 * A customer's usage in [period.start, period.end): per metric the exact total and event count,
 * and for `dimensionMetrics` the share of each rating dimension. `edges` caches the raw partial
 * hours (edgeCacheOf(deps)); null reads them every time.
 */
export async function readPeriodUsage(
  db: Db,
  dialect: DialectName,
  edges: EdgeCache | null,
  tenant: Tenant,
  customerId: string,
  period: Period,
  dimensionMetrics: Iterable<string>,
): Promise<PeriodUsage> {
  if (period.end <= period.start) return new Map();
  const wanted = new Set(dimensionMetrics);
  const withDimensions = wanted.size > 0;
  const { fromHour, toHour, edges: parts } = periodParts(period);
  // The generation before the counts, and the counts before the events: an entry can then only
  // be older than its counts say (and is read again), never newer.
  const generation = edges?.generation ?? 0;
  const counts = await readHourCounts(
    db,
    tenant,
    customerId,
    parts.map((p) => p.hour),
  );
  const total = new UsageTotal(wanted);
  const plan = planTotalParts(fromHour, toHour);
  for (const s of await sumTotalParts(db, dialect, tenant, customerId, plan)) total.add(plan[s.part]!.sign, s.metricName, NO_DIMENSION, s.quantity, s.events);
  for (const s of await sumHourlyShares(db, dialect, tenant, customerId, fromHour, toHour, [...wanted]))
    total.add(1, s.metricName, s.dimension, s.quantity, s.events);
  for (const p of parts) {
    const signature = countsSignature(counts, p.hour);
    if (signature === '') continue; // no event in that hour: nothing before or after the edge
    const key = `${tenant.workspaceId}\u0000${tenant.environment}\u0000${customerId}\u0000${p.edge}`;
    let edge = edges?.get(key);
    if (!edge || edge.counts !== signature || (withDimensions && !edge.withDimensions)) {
      const events = await readCustomerEvents(db, tenant, customerId, p.hour, p.edge, withDimensions);
      // Shares of every metric of the edge, not only those wanted now: the entry serves later reads.
      const readers = withDimensions ? await dimensionReadersOf(db, tenant, events) : null;
      edge = { counts: signature, withDimensions, usage: sumEvents(events, readers) };
      edges?.set(key, edge, generation);
    }
    total.addUsage(p.sign, edge.usage);
  }
  return total.result();
}
