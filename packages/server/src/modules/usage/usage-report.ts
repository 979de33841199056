import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Deps } from '../../deps.js';
import { forTenant } from '../../db/tenant-scope.js';
import { toIso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { decimalAdd } from '../../lib/money.js';
import { addMonthsUtc, monthStart } from '../../lib/periods.js';
import type { Tenant } from '../tenancy/tenant.js';
import { resolveCustomerRefs } from './usage.repository.js';

export const GROUP_BY_PATTERN = '^[A-Za-z0-9_-]{1,40}$';

export const UsageQuery = Type.Object(
  {
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'cus_ id or externalId.' })),
    metricName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Months overlapping [from, to) are reported; default: the current month.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive; default: the end of the month of from.' })),
    groupBy: Type.Optional(
      Type.String({ pattern: GROUP_BY_PATTERN, description: 'A metadata key: each row is split by its value (events without it: null). Reads the events of the range.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    startingAfter: Type.Optional(Type.String({ description: 'The id of the last row of the previous page.' })),
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

type Key = [number, string, string, string | null];
const encode = (k: Key) => `usg_${Buffer.from(JSON.stringify(k)).toString('base64url')}`;
function decode(cursor: string): Key {
  try {
    const k = JSON.parse(Buffer.from(cursor.replace(/^usg_/, ''), 'base64url').toString('utf8')) as Key;
    if (Array.isArray(k) && typeof k[0] === 'number' && typeof k[1] === 'string' && typeof k[2] === 'string') return k;
  } catch {
    // fall through
  }
  throw new AppError('VALIDATION_FAILED', 'query.startingAfter is not a cursor this endpoint returned.', { field: 'query.startingAfter' });
}

const compare = (a: Key, b: Key) =>
  a[0] - b[0] || a[1].localeCompare(b[1]) || a[2].localeCompare(b[2]) || String(a[3] ?? '').localeCompare(String(b[3] ?? ''));

/**
 * Usage per customer, metric and calendar month (sum and count), from the aggregates; with
 * groupBy, from the events of the range, split by one metadata key. Sums are exact in both
 * dialects. Ordered by month, customer, metric and group value.
 */
export async function reportUsage(deps: Deps, tenant: Tenant, q: UsageQuery): Promise<{ items: UsageRow[]; hasMore: boolean }> {
  const now = deps.clock.now();
  const from = monthStart(q.from ? Date.parse(q.from) : now);
  const to = q.to ? Date.parse(q.to) : addMonthsUtc(from, 1);
  if (!(to > from)) throw new AppError('VALIDATION_FAILED', 'query.to must be after query.from.', { field: 'query.to' });
  let customerId: string | undefined;
  if (q.customerId !== undefined) {
    customerId = (await resolveCustomerRefs(deps.db, tenant, [q.customerId])).get(q.customerId);
    if (!customerId) throw new AppError('NOT_FOUND', `No customer with id or externalId '${q.customerId}'.`, { field: 'query.customerId' });
  }
  const limit = q.limit ?? 100;
  let rows: Array<{ customerId: string; metricName: string; periodStart: number; groupValue: string | null; sum: string; count: number }>;
  if (q.groupBy === undefined) {
    let qb = deps.db
      .selectFrom('usageAggregates')
      .select(['customerId', 'metricName', 'periodStart', 'quantitySum', 'eventCount'])
      .$call(forTenant(tenant))
      .where('periodStart', '>=', from)
      .where('periodStart', '<', to);
    if (customerId) qb = qb.where('customerId', '=', customerId);
    if (q.metricName) qb = qb.where('metricName', '=', q.metricName);
    // A month of one metric may span several rating dimensions (rating-dimension.ts): merge them.
    const merged = new Map<string, (typeof rows)[number]>();
    for (const r of await qb.execute()) {
      const k = `${r.periodStart}\u0000${r.customerId}\u0000${r.metricName}`;
      const seen = merged.get(k);
      if (seen) {
        seen.sum = decimalAdd(seen.sum, r.quantitySum);
        seen.count += Number(r.eventCount);
      } else {
        merged.set(k, { customerId: r.customerId, metricName: r.metricName, periodStart: r.periodStart, groupValue: null, sum: r.quantitySum, count: Number(r.eventCount) });
      }
    }
    rows = [...merged.values()];
  } else {
    const value =
      deps.dialect === 'sqlite'
        ? sql<string | null>`cast(json_extract(metadata, ${`$."${q.groupBy}"`}) as text)`
        : sql<string | null>`(metadata::jsonb ->> ${q.groupBy})`;
    const total = deps.dialect === 'sqlite' ? sql<string>`dec_sum(quantity)` : sql<string>`sum(quantity::numeric)::text`;
    let qb = deps.db
      .selectFrom('usageEvents')
      .select(['customerId', 'metricName', 'periodStart'])
      .select([value.as('groupValue'), total.as('sum'), (eb) => eb.fn.countAll<number>().as('count')])
      .$call(forTenant(tenant))
      .where('periodStart', '>=', from)
      .where('periodStart', '<', to);
    if (customerId) qb = qb.where('customerId', '=', customerId);
    if (q.metricName) qb = qb.where('metricName', '=', q.metricName);
    // By the output name: PostgreSQL would see two different parameters in the repeated expression.
    rows = (await qb.groupBy(['customerId', 'metricName', 'periodStart', sql.ref('groupValue')]).execute()).map((r) => ({ ...r, count: Number(r.count) }));
  }
  const keyed = rows.map((r) => ({ r, key: [r.periodStart, r.customerId, r.metricName, r.groupValue] as Key })).sort((a, b) => compare(a.key, b.key));
  const after = q.startingAfter ? decode(q.startingAfter) : null;
  const page = (after ? keyed.filter((x) => compare(x.key, after) > 0) : keyed).slice(0, limit + 1);
  const items = page.slice(0, limit).map(({ r, key }) => ({
    id: encode(key),
    object: 'usage' as const,
    customerId: r.customerId,
    metricName: r.metricName,
    periodStart: toIso(r.periodStart),
    periodEnd: toIso(addMonthsUtc(r.periodStart, 1)),
    ...(q.groupBy !== undefined ? { groupValue: r.groupValue } : {}),
    sum: r.sum,
    count: r.count,
  }));
  return { items, hasMore: page.length > limit };
}
