import { Type, type Static } from '@sinclair/typebox';
import { setImmediate } from 'node:timers/promises';
import type { Deps } from '../../deps.js';
import { toIso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { ExactSum } from '../../lib/money.js';
import { addMonthsUtc, monthStart } from '../../lib/periods.js';
import type { Tenant } from '../../lib/tenant.js';
import { DOTTED_PATH_PATTERN, MAX_PATH_LENGTH, parseDottedPath } from '../../lib/dotted-path.js';
import { resolveCustomerRefs } from '../customers/customer.repository.js';
import { nthEventPosition, readGroupedEvents, type EventPosition, type MetadataFilter } from './usage.repository.js';
import { listCustomerMonths, listTotals, type CustomerMonthCursor, type TotalsRange } from './usage-totals.repository.js';

const PATH_RULE =
  'A dotted path into metadata, such as request.method: 1 to 5 keys of 1 to 40 characters from A-Z a-z 0-9 _ -, joined by dots (a key with another character, and array items, cannot be addressed).';

export const UsageQuery = Type.Object(
  {
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'cus_ id or externalId.' })),
    metricName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    from: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 40, description: 'Months overlapping [from, to) are reported; default: the current month.' }),
    ),
    to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Exclusive; default: the end of the month of from.' })),
    groupBy: Type.Optional(
      Type.String({
        pattern: DOTTED_PATH_PATTERN,
        maxLength: MAX_PATH_LENGTH,
        description: `${PATH_RULE} Each row is split by the value there as text (true, 12.5); events without one, or with an object, an array or null there, group under null. Reads the events of the months on the page.`,
      }),
    ),
    filterBy: Type.Optional(
      Type.String({
        pattern: DOTTED_PATH_PATTERN,
        maxLength: MAX_PATH_LENGTH,
        description: `${PATH_RULE} With filterValue: only events whose value there, as text (as groupBy shows it), equals filterValue are counted. Reads the events of the months on the page.`,
      }),
    ),
    filterValue: Type.Optional(Type.String({ maxLength: 500, description: 'The value filterBy must have, as text: GET, true, 12.5. Required with filterBy.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    // A cursor holds a group value (up to 500 characters, JSON-escaped) in base64url.
    startingAfter: Type.Optional(Type.String({ maxLength: 8192, description: 'The id of the last row of the previous page.' })),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageRowSchema = Type.Object(
  {
    id: Type.String({ description: 'An opaque cursor for startingAfter.' }),
    object: Type.Literal('usage'),
    customerId: Type.String(),
    metricName: Type.String(),
    periodStart: Type.String({ format: 'date-time', description: 'The UTC calendar month.' }),
    periodEnd: Type.String({ format: 'date-time' }),
    groupValue: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'The metadata value, with groupBy (as text).' })),
    sum: Type.String({ description: 'Exact sum of quantities, decimal.' }),
    count: Type.Integer({ description: 'Number of events.' }),
  },
  { title: 'UsageRow' },
);
export type UsageRow = Static<typeof UsageRowSchema>;

type Key = [periodStart: number, customerId: string, metricName: string, groupValue: string | null];
const encode = (k: Key) => `usg_${Buffer.from(JSON.stringify(k)).toString('base64url')}`;
function decode(cursor: string): Key {
  try {
    const k = JSON.parse(Buffer.from(cursor.replace(/^usg_/, ''), 'base64url').toString('utf8')) as Key;
    if (
      Array.isArray(k) &&
      Number.isSafeInteger(k[0]) &&
      typeof k[1] === 'string' &&
      typeof k[2] === 'string' &&
      (k[3] === undefined || k[3] === null || typeof k[3] === 'string')
    ) {
      return [k[0], k[1], k[2], k[3] ?? null];
    }
  } catch {
    // fall through
  }
  throw new AppError('VALIDATION_FAILED', 'query.startingAfter is not a cursor this endpoint returned.', { field: 'query.startingAfter' });
}

/**
 * Index entries one read covers at most, whichever customers they belong to: a few milliseconds
 * of SQLite on the main thread, after which other requests get a turn.
 */
export const EVENTS_PER_READ = 4000;
/** The most customer-months a page reads; a page holds at most 1,000 rows. */
const MAX_CUSTOMER_MONTHS = 1002;

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
  text(a.metricName, b.metricName) ||
  (a.groupValue === b.groupValue ? 0 : a.groupValue === null ? -1 : b.groupValue === null ? 1 : text(a.groupValue, b.groupValue));

/**
 * Usage per customer, metric and calendar month (sum and count), ordered by month, customer,
 * metric and group value. Without groupBy or a filter, one page of total rows. With groupBy, the
 * events split by the value at one metadata path, and with filterBy only those whose value at a
 * path is filterValue: the customer-months of the page are listed from the total rows, then
 * each month of the page is read once through the (tenant, occurred_at, customer_id) index, a
 * bounded number of entries at a time with a turn for other requests in between. A page costs its
 * tenant's events of the months it shows, never another tenant's rows. Sums are exact.
 */
export async function reportUsage(
  deps: Deps,
  tenant: Tenant,
  q: UsageQuery,
  opts: { eventsPerRead?: number } = {},
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
  const split = eventSplit(q);
  const rows =
    split === null
      ? (await listTotals(deps.db, tenant, range, after && [after[0], after[1], after[2]], limit + 1)).map((t) => ({
          ...t,
          groupValue: null,
          sum: t.quantitySum,
          count: t.eventCount,
        }))
      : await groupedPage(deps, tenant, range, split, after, limit + 1, opts.eventsPerRead ?? EVENTS_PER_READ);
  const items = rows.slice(0, limit).map((r) => ({
    id: encode([r.periodStart, r.customerId, r.metricName, r.groupValue]),
    object: 'usage' as const,
    customerId: r.customerId,
    metricName: r.metricName,
    periodStart: toIso(r.periodStart),
    periodEnd: toIso(addMonthsUtc(r.periodStart, 1)),
    ...(split?.groupBy ? { groupValue: r.groupValue } : {}),
    sum: r.sum,
    count: r.count,
  }));
  return { items, hasMore: rows.length > limit };
}

/** How events are read instead of the total rows: split by a path, counted only when a path has a value, or both. */
interface EventSplit {
  /** The groupBy path's segments; null: one group (a filter alone). */
  groupBy: string[] | null;
  filter: MetadataFilter | null;
}

/** The groupBy and filter of a query, their paths checked (the schema's pattern, again here); null when neither is asked. */
function eventSplit(q: UsageQuery): EventSplit | null {
  if ((q.filterBy === undefined) !== (q.filterValue === undefined)) {
    const missing = q.filterBy === undefined ? 'filterBy' : 'filterValue';
    throw new AppError('VALIDATION_FAILED', `query.${missing} is required with query.${missing === 'filterBy' ? 'filterValue' : 'filterBy'}.`, {
      field: `query.${missing}`,
    });
  }
  const path = (text: string | undefined, field: string) => {
    if (text === undefined) return null;
    const segments = parseDottedPath(text);
    if (segments === null) throw new AppError('VALIDATION_FAILED', `query.${field} must be a dotted path such as request.method.`, { field: `query.${field}` });
    return segments;
  };
  const groupBy = path(q.groupBy, 'groupBy');
  const filterPath = path(q.filterBy, 'filterBy');
  if (groupBy === null && filterPath === null) return null;
  return { groupBy, filter: filterPath === null ? null : { path: filterPath, value: q.filterValue! } };
}

/** At least `want` rows after the cursor (fewer at the end), whole customer-months at a time. */
async function groupedPage(
  deps: Deps,
  tenant: Tenant,
  range: TotalsRange,
  split: EventSplit,
  after: Key | null,
  want: number,
  perRead: number,
): Promise<Row[]> {
  const out: Row[] = [];
  let from: CustomerMonthCursor | null = after && { periodStart: after[0], customerId: after[1], inclusive: true };
  for (;;) {
    // Every listed customer-month has events, so gives a row at least unless a filter leaves
    // none out; one more covers the cursor's own customer-month, which may have nothing left
    // after the cursor.
    const asked = Math.min(want - out.length + 1, MAX_CUSTOMER_MONTHS);
    const listed = await listCustomerMonths(deps.db, tenant, range, from, asked);
    for (const [periodStart, customers] of byMonth(listed)) {
      let rows = await groupMonth(deps, tenant, { ...range, split, periodStart, customers, perRead });
      if (after && periodStart === after[0]) {
        const seen = { metricName: after[2], groupValue: after[3] };
        rows = rows.filter((r) => r.customerId !== after[1] || byMetricAndValue(r, seen) > 0);
      }
      out.push(...rows);
      if (out.length >= want) return out;
    }
    if (listed.length < asked) return out;
    from = { ...listed[listed.length - 1]!, inclusive: false };
  }
}

/** Listed customer-months by month, each month's customers in listing order. */
function byMonth(listed: ReadonlyArray<{ periodStart: number; customerId: string }>): Map<number, string[]> {
  const months = new Map<number, string[]>();
  for (const m of listed) months.set(m.periodStart, [...(months.get(m.periodStart) ?? []), m.customerId]);
  return months;
}

interface MonthRead extends TotalsRange {
  split: EventSplit;
  periodStart: number;
  /** In the order the report lists them (the database's order of ids). */
  customers: string[];
  perRead: number;
}

/**
 * One month of some customers, split by the groupBy value: the tenant's events of the month are
 * read `perRead` index entries at a time (only these customers' rows are fetched), with a turn
 * for other requests between reads, since on SQLite each read holds the main thread.
 */
async function groupMonth(deps: Deps, tenant: Tenant, m: MonthRead): Promise<Row[]> {
  const groups = new Map<string, { row: Row; sum: ExactSum }>();
  const to = addMonthsUtc(m.periodStart, 1);
  const customers: [string, string] = [m.customers[0]!, m.customers[m.customers.length - 1]!];
  let position: EventPosition | null = null;
  for (;;) {
    const range = { from: m.periodStart, to, after: position };
    const upTo = await nthEventPosition(deps.db, tenant, range, m.perRead);
    const events = await readGroupedEvents(deps.db, deps.dialect, tenant, {
      ...range,
      upTo,
      customers,
      groupBy: m.split.groupBy,
      filter: m.split.filter,
      ...(m.metricName ? { metricName: m.metricName } : {}),
    });
    for (const e of events) {
      const key = `${e.customerId}\u0000${e.metricName}\u0000${e.groupValue === null ? '' : `=${e.groupValue}`}`;
      let g = groups.get(key);
      if (!g)
        groups.set(
          key,
          (g = {
            row: { customerId: e.customerId, periodStart: m.periodStart, metricName: e.metricName, groupValue: e.groupValue, sum: '0', count: 0 },
            sum: new ExactSum(),
          }),
        );
      g.sum.add(e.quantity);
      g.row.count += 1;
    }
    if (upTo === null) break;
    position = upTo;
    await setImmediate();
  }
  const order = new Map(m.customers.map((c, i) => [c, i]));
  return [...groups.values()]
    .map((g) => ({ ...g.row, sum: g.sum.text() }))
    .sort((a, b) => order.get(a.customerId)! - order.get(b.customerId)! || byMetricAndValue(a, b));
}
