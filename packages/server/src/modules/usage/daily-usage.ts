import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import { resolveCustomerRefs } from '../customers/customer.repository.js';
import { sumDailyTotals } from './usage-hourly.repository.js';

const DAY_MS = 86_400_000;
/** A chart's range: up to 93 days (a quarter), so one answer is at most 93 rows per metric. */
export const MAX_DAYS = 93;

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description: 'A UTC calendar day, YYYY-MM-DD.' });

export const DailyUsageQuery = Type.Object(
  {
    from: Day,
    to: Type.String({ ...Day, description: 'The last day, inclusive (YYYY-MM-DD, UTC). At most 93 days after from.' }),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'cus_ id or externalId; absent: every customer.' })),
    metricName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type DailyUsageQuery = Static<typeof DailyUsageQuery>;

export const UsageDaySchema = Type.Object(
  {
    object: Type.Literal('usage_day'),
    date: Type.String({ description: 'The UTC day, YYYY-MM-DD.' }),
    metricName: Type.String(),
    sum: Type.String({ description: 'Exact sum of quantities, decimal.' }),
    count: Type.Integer({ description: 'Number of events.' }),
  },
  { title: 'UsageDay' },
);
export type UsageDay = Static<typeof UsageDaySchema>;

/** Pure: a YYYY-MM-DD day as the epoch ms of its UTC start, or null when it is no calendar day. */
export function dayStartOf(day: string): number | null {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day ? null : ms;
}

/**
 * Usage per UTC day and metric, from..to inclusive, for one customer or all: the series the
 * console's and the developer hub's charts draw. Days without usage have no row.
 */
export async function dailyUsage(deps: Deps, tenant: Tenant, q: DailyUsageQuery): Promise<UsageDay[]> {
  const from = dayStartOf(q.from);
  const to = dayStartOf(q.to);
  if (from === null) throw new AppError('VALIDATION_FAILED', `query.from '${q.from}' is not a calendar day.`, { field: 'query.from' });
  if (to === null) throw new AppError('VALIDATION_FAILED', `query.to '${q.to}' is not a calendar day.`, { field: 'query.to' });
  if (to < from) throw new AppError('VALIDATION_FAILED', 'query.to must not be before query.from.', { field: 'query.to' });
  if ((to - from) / DAY_MS + 1 > MAX_DAYS) {
    throw new AppError('VALIDATION_FAILED', `At most ${MAX_DAYS} days at a time; ask for several ranges.`, { field: 'query.to' });
  }
  let customerId: string | undefined;
  if (q.customerId !== undefined) {
    customerId = (await resolveCustomerRefs(deps.db, tenant, [q.customerId])).get(q.customerId);
    if (!customerId) throw new AppError('NOT_FOUND', `No customer with id or externalId '${q.customerId}'.`, { field: 'query.customerId' });
  }
  const rows = await sumDailyTotals(deps.db, deps.dialect, tenant, {
    fromHour: from,
    toHour: to + DAY_MS,
    ...(customerId ? { customerId } : {}),
    ...(q.metricName ? { metricName: q.metricName } : {}),
  });
  return rows.map((r) => ({
    object: 'usage_day',
    date: new Date(r.dayStart).toISOString().slice(0, 10),
    metricName: r.metricName,
    sum: r.quantity,
    count: r.events,
  }));
}
