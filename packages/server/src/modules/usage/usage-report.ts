import { Type, type Static } from '@sinclair/typebox';
import { setImmediate } from 'node:timers/promises';
import type { Deps } from '../../deps.js';
import { toIso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { decimalAdd } from '../../lib/money.js';
import { addMonthsUtc, monthStart } from '../../lib/periods.js';
import type { Tenant } from '../tenancy/tenant.js';
import { readCustomerEvents, resolveCustomerRefs, type EventPosition } from './usage.repository.js';
import { listCustomerMonths, listTotals, type CustomerMonthCursor, type TotalsRange } from './usage-totals.repository.js';

export const GROUP_BY_PATTERN = '^[A-Za-z0-9_-]{1,40}$';

export const UsageQuery = Type.Object(
  {
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'cus_ id or externalId.' })),
    metricName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Months overlapping [from, to) are reported; default: the current month.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive; default: the end of the month of from.' })),
    groupBy: Type.Optional(
      Type.String({ pattern: GROUP_BY_PATTERN, description: 'A metadata key: each row is split by its value as text (events without it: null). Reads the events of each customer-month of the page.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    // A cursor holds a group value (up to 500 characters, JSON-escaped) in base64url.
    startingAfter: Type.Optional(Type.String({ maxLength: 8192, description: 'The id of the last row of the previous page.' })),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageRowSchema = Type.Object({
  id: Type.String({ description: 'An opaque cursor for startingAfter.' }),
  object: Type.Literal('usage'),
  customerId: Type.String(),
  metricName: Type.String(),
  periodStart: Type.String({ format: 'date-time', description: 'The UTC calendar month.' }),
  periodEnd: Type.String({ format: 'date-time' }),
  groupValue: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'The metadata value, with groupBy (as text).' })),
  sum: Type.String({ description: 'Exact sum of quantities, decimal.' }),
  count: Type.Integer({ description: 'Number of events.' }),
});
export type UsageRow = Static<typeof UsageRowSchema>;

type Key = [periodStart: number, customerId: string, metricName: string, groupValue: string | null];
const encode = (k: Key) => `usg_${Buffer.from(JSON.stringify(k)).toString('base64url')}`;
function decode(cursor: string): Key {
  try {
    const k = JSON.parse(Buffer.from(cursor.replace(/^usg_/, ''), 'base64url').toString('utf8')) as Key;
    if (Array.isArray(k) && Number.isSafeInteger(k[0]) && typeof k[1] === 'string' && typeof k[2] === 'string' && (k[3] === undefined || k[3] === null || typeof k[3] === 'string')) {
      return [k[0], k[1], k[2], k[3] ?? null];
    }
  } catch {
    // fall through
  }
  throw new AppError('VALIDATION_FAILED', 'query.startingAfter is not a cursor this endpoint returned.', { field: 'query.startingAfter' });
}

/** Events read per query: a few milliseconds of SQLite on the main thread, then other requests run. */
export const EVENTS_PER_CHUNK = 2000;
/** Customer-months listed per query while walking a groupBy report. */
const CUSTOMER_MONTHS_PER_READ = 100;

interface Row {
  customerId: string;
  metricName: string;
  periodStart: number;
  groupValue: string | null;
  sum: string;
  count: number;
}

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Within one customer's month: by metric, then group value, null first. */
const byMetricAndValue = (a: Pick<Row, 'metricName' | 'groupValue'>, b: Pick<Row, 'metricName' | 'groupValue'>) =>
  text(a.metricName, b.metricName) || (a.groupValue === b.groupValue ? 0 : a.groupValue === null ? -1 : b.groupValue === null ? 1 : text(a.groupValue, b.groupValue));

/**
 * Usage per customer, metric and calendar month (sum and count), ordered by month, customer,
 * metric and group value. Without groupBy, one page of usage_totals. With groupBy, the events
 * split by one metadata key: each customer's month is read through the events' customer index,
 * in chunks with a turn for other requests between them, and the walk stops once the page is
 * full. Either way a report costs what it returns (plus, with groupBy, the rest of the last
 * customer-month it reads), never a scan of other tenants' events. Sums are exact.
 */
export async function reportUsage(
  deps: Deps,
  tenant: Tenant,
  q: UsageQuery,
  opts: { eventsPerChunk?: number } = {},
): Promise<{ items: UsageRow[]; hasMore: boolean }> {
  const now = deps.clock.now();
  const from = monthStart(q.from ? Date.parse(q.from) : now);
  const to = q.to ? Date.parse(q.to) : addMonthsUtc(from, 1);
  if (!(to > from)) throw new AppError('VALIDATION_FAILED', 'query.to must be after query.from.', { field: 'query.to' });
  const after = q.startingAfter ? decode(q.startingAfter) : null;
  let customerId: string | undefined;
  if (q.customerId !== undefined) {
    customerId = (await resolveCustomerRefs(deps.db, tenant, [q.customerId])).get(q.customerId);
    if (!customerId) throw new AppError('NOT_FOUND', `No customer with id or externalId '${q.customerId}'.`, { field: 'query.customerId' });
  }
  const range: TotalsRange = { from, to, ...(customerId ? { customerId } : {}), ...(q.metricName ? { metricName: q.metricName } : {}) };
  const limit = q.limit ?? 100;
  const rows =
    q.groupBy === undefined
      ? (await listTotals(deps.db, tenant, range, after && [after[0], after[1], after[2]], limit + 1)).map((t) => ({ ...t, groupValue: null, sum: t.quantitySum, count: t.eventCount }))
      : await groupedPage(deps, tenant, range, q.groupBy, after, limit + 1, opts.eventsPerChunk ?? EVENTS_PER_CHUNK);
  const items = rows.slice(0, limit).map((r) => ({
    id: encode([r.periodStart, r.customerId, r.metricName, r.groupValue]),
    object: 'usage' as const,
    customerId: r.customerId,
    metricName: r.metricName,
    periodStart: toIso(r.periodStart),
    periodEnd: toIso(addMonthsUtc(r.periodStart, 1)),
    ...(q.groupBy !== undefined ? { groupValue: r.groupValue } : {}),
    sum: r.sum,
    count: r.count,
  }));
  return { items, hasMore: rows.length > limit };
}

/**
 * A turn for other requests after every `chunk` rows read. On SQLite each read runs on the main
 * thread, so this bounds how long a report holds it: a chunk takes a few milliseconds. A query
 * counts as at least MIN_ROWS_PER_QUERY rows, so a walk over many small customer-months pauses too.
 */
function turnsEvery(chunk: number): (rows: number) => Promise<void> {
  let read = 0;
  return async (rows) => {
    read += Math.max(rows, MIN_ROWS_PER_QUERY);
    if (read < chunk) return;
    read = 0;
    await setImmediate();
  };
}
const MIN_ROWS_PER_QUERY = 20;

interface Walk {
  deps: Deps;
  tenant: Tenant;
  range: TotalsRange;
  groupBy: string;
  chunk: number;
  turn: (rows: number) => Promise<void>;
}

/** At least `want` rows after the cursor (fewer at the end), whole customer-months at a time. */
async function groupedPage(deps: Deps, tenant: Tenant, range: TotalsRange, groupBy: string, after: Key | null, want: number, chunk: number): Promise<Row[]> {
  const walk: Walk = { deps, tenant, range, groupBy, chunk, turn: turnsEvery(chunk) };
  const out: Row[] = [];
  let from: CustomerMonthCursor | null = after && { periodStart: after[0], customerId: after[1], inclusive: true };
  for (;;) {
    const months = await listCustomerMonths(deps.db, tenant, range, from, CUSTOMER_MONTHS_PER_READ);
    await walk.turn(months.length);
    for (const m of months) {
      let rows = await groupCustomerMonth(walk, m);
      if (after && m.periodStart === after[0] && m.customerId === after[1]) {
        const seen = { metricName: after[2], groupValue: after[3] };
        rows = rows.filter((r) => byMetricAndValue(r, seen) > 0);
      }
      out.push(...rows);
      if (out.length >= want) return out;
    }
    if (months.length < CUSTOMER_MONTHS_PER_READ) return out;
    from = { ...months[months.length - 1]!, inclusive: false };
  }
}

/** One customer's month split by the groupBy value, read `chunk` events at a time. */
async function groupCustomerMonth(walk: Walk, m: { periodStart: number; customerId: string }): Promise<Row[]> {
  const { deps, tenant, range, groupBy, chunk } = walk;
  const groups = new Map<string, Row>();
  const read = { customerId: m.customerId, from: m.periodStart, to: addMonthsUtc(m.periodStart, 1), groupBy, limit: chunk, ...(range.metricName ? { metricName: range.metricName } : {}) };
  let position: EventPosition | null = null;
  for (;;) {
    const events = await readCustomerEvents(deps.db, deps.dialect, tenant, { ...read, after: position });
    for (const e of events) {
      const key = `${e.metricName}\u0000${e.groupValue === null ? '' : `=${e.groupValue}`}`;
      const g = groups.get(key);
      if (g) {
        g.sum = decimalAdd(g.sum, e.quantity);
        g.count += 1;
      } else {
        groups.set(key, { ...m, metricName: e.metricName, groupValue: e.groupValue, sum: e.quantity, count: 1 });
      }
    }
    await walk.turn(events.length);
    if (events.length < chunk) break;
    position = events[events.length - 1]!;
  }
  return [...groups.values()].sort(byMetricAndValue);
}
