import { sql, type Selectable } from 'kysely';
import { isPostgres, type Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { runStatement, statementText } from '../../db/statement-text.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import type { BillingPeriod } from '../../lib/periods.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { PeriodAlignment } from '@tollgate/pricing';
import type { PendingUpdate, ScheduledChange, SpendBudget, Subscription, SubscriptionDiscount, SubscriptionStatus, UsageLimit } from './subscription.js';
import type { CancellationDetails } from './cancellation-details.js';

function serialized(s: Subscription) {
  return {
    metadata: JSON.stringify(s.metadata),
    usageLimits: JSON.stringify(s.usageLimits),
    spendBudget: s.spendBudget === null ? null : JSON.stringify(s.spendBudget),
    unitPrices: JSON.stringify(s.unitPrices),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd ? 1 : 0,
    scheduledChange: s.scheduledChange === null ? null : JSON.stringify(s.scheduledChange),
    priceVersionPinned: s.priceVersionPinned ? 1 : 0,
    discount: s.discount === null ? null : JSON.stringify(s.discount),
    cancellationDetails: s.cancellationDetails === null ? null : JSON.stringify(s.cancellationDetails),
    pendingUpdate: s.pendingUpdate === null ? null : JSON.stringify(s.pendingUpdate),
  };
}
import type { SubscriptionTable } from '../../db/tables/subscription.table.js';
import type { CollectionMethod } from './collection-method.js';

function toSubscription(r: Selectable<SubscriptionTable>): Subscription {
  return {
    id: r.id,
    environment: r.environment as Environment,
    customerId: r.customerId,
    productId: r.productId,
    offeringId: r.offeringId,
    trialEndsAt: r.trialEndsAt,
    status: r.status as SubscriptionStatus,
    billingPeriod: r.billingPeriod as BillingPeriod,
    currentPeriodStart: r.currentPeriodStart,
    currentPeriodEnd: r.currentPeriodEnd,
    version: r.version,
    startedAt: r.startedAt,
    cancelledAt: r.cancelledAt,
    metadata: parseMetadata(r.metadata),
    currency: r.currency,
    usageLimits: JSON.parse(r.usageLimits) as UsageLimit[],
    spendBudget: r.spendBudget === null ? null : (JSON.parse(r.spendBudget) as SpendBudget),
    unitPrices: JSON.parse(r.unitPrices) as Record<string, string>,
    billingAnchor: Number(r.billingAnchor),
    periodAlignment: r.periodAlignment as PeriodAlignment,
    cancelAtPeriodEnd: Number(r.cancelAtPeriodEnd) === 1,
    scheduledChange: r.scheduledChange === null ? null : (JSON.parse(r.scheduledChange) as ScheduledChange),
    testClockId: r.testClockId,
    priceVersionId: r.priceVersionId,
    priceVersionPinned: Number(r.priceVersionPinned) === 1,
    discount: r.discount === null ? null : (JSON.parse(r.discount) as SubscriptionDiscount),
    cancellationDetails: r.cancellationDetails === null ? null : (JSON.parse(r.cancellationDetails) as CancellationDetails),
    pastDueSince: r.pastDueSince === null ? null : Number(r.pastDueSince),
    pastDueAccessUntil: r.pastDueAccessUntil === null ? null : Number(r.pastDueAccessUntil),
    collectionMethod: r.collectionMethod as CollectionMethod | null,
    pendingUpdate: r.pendingUpdate === null ? null : (JSON.parse(r.pendingUpdate) as PendingUpdate),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export async function insertSubscription(db: Db, tenant: Tenant, s: Subscription): Promise<void> {
  await db
    .insertInto('subscriptions')
    .values({ ...s, workspaceId: tenant.workspaceId, environment: tenant.environment, ...serialized(s) })
    .execute();
}

export async function findSubscription(db: Db, tenant: Tenant, id: string): Promise<Subscription | null> {
  const r = await db.selectFrom('subscriptions').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toSubscription(r) : null;
}

/** A tenant's subscriptions by id, unlocked (those absent are left out). */
export async function findSubscriptions(db: Db, tenant: Tenant, ids: readonly string[]): Promise<Subscription[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('subscriptions')
    .selectAll()
    .$call(forTenant(tenant))
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return rows.map(toSubscription);
}

/**
 * The subscription that decides a customer's access to a product: the newest active one, else the
 * newest. A customer has few subscriptions to one product, so they are picked here: an ORDER BY
 * would make SQLite build a temporary sort tree on this hot path.
 */
const DECIDING_SUBSCRIPTIONS = statementText(
  'subscriptions.deciding',
  () => 'select * from subscriptions where workspace_id = ? and environment = ? and customer_id = ? and product_id = ?',
);

export async function findDecidingSubscription(db: Db, tenant: Tenant, customerId: string, productId: string): Promise<Subscription | null> {
  // Every entitlement check that is not answered from the cache asks this: text made once (db/statement-text.ts).
  const rows = await runStatement<Selectable<SubscriptionTable>>(db, DECIDING_SUBSCRIPTIONS, [tenant.workspaceId, tenant.environment, customerId, productId]);
  const active = rows.filter((r) => r.status !== 'CANCELLED');
  // Ids are time-ordered: the greatest is the newest.
  const pick = (active.length > 0 ? active : rows).reduce<(typeof rows)[number] | null>((a, r) => (a === null || r.id > a.id ? r : a), null);
  return pick ? toSubscription(pick) : null;
}

export interface SubscriptionFilter extends PageParams {
  customerId?: string;
  productId?: string;
  status?: SubscriptionStatus;
}

export async function listSubscriptions(db: Db, tenant: Tenant, f: SubscriptionFilter): Promise<Page<Subscription>> {
  let q = db.selectFrom('subscriptions').selectAll().$call(forTenant(tenant));
  if (f.customerId !== undefined) q = q.where('customerId', '=', f.customerId);
  if (f.productId !== undefined) q = q.where('productId', '=', f.productId);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  const { items, hasMore } = await pageById(q, 'subscriptions', f);
  return { items: items.map(toSubscription), hasMore };
}

/**
 * Writes a changed subscription only if nobody changed it since it was read (its version is
 * unchanged); returns false when someone did.
 */
export async function updateSubscriptionIfVersion(db: Db, tenant: Tenant, next: Subscription, readVersion: number): Promise<boolean> {
  const r = await db
    .updateTable('subscriptions')
    .set({
      status: next.status,
      cancelledAt: next.cancelledAt,
      currentPeriodStart: next.currentPeriodStart,
      currentPeriodEnd: next.currentPeriodEnd,
      offeringId: next.offeringId,
      trialEndsAt: next.trialEndsAt,
      billingAnchor: next.billingAnchor,
      priceVersionId: next.priceVersionId,
      pastDueSince: next.pastDueSince,
      pastDueAccessUntil: next.pastDueAccessUntil,
      collectionMethod: next.collectionMethod,
      ...serialized(next),
      currency: next.currency,
      version: next.version,
      updatedAt: next.updatedAt,
    })
    .$call(forTenant(tenant))
    .where('id', '=', next.id)
    .where('version', '=', readVersion)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Writes what a renewal changes (status, period, offering, price version, the cancellation and the
 * scheduled change it consumed with the usage limits that change carried, the schedule a change to
 * another billing period restarts, the discount it counted down) of many subscriptions in one
 * statement, each only if its version is still the one read; the version moves to the one of `next`. How many were written: fewer than
 * given means another writer got to one first. Every other column is left as it is.
 */
export async function updateRenewedSubscriptions(db: Db, tenant: Tenant, renewed: ReadonlyArray<{ next: Subscription; readVersion: number }>): Promise<number> {
  if (renewed.length === 0) return 0;
  const rows = JSON.stringify(
    renewed.map(({ next: n, readVersion }) => ({
      id: n.id,
      read_version: readVersion,
      version: n.version,
      status: n.status,
      cancelled_at: n.cancelledAt,
      cancel_at_period_end: n.cancelAtPeriodEnd ? 1 : 0,
      scheduled_change: n.scheduledChange === null ? null : JSON.stringify(n.scheduledChange),
      offering_id: n.offeringId,
      price_version_id: n.priceVersionId,
      discount: n.discount === null ? null : JSON.stringify(n.discount),
      usage_limits: JSON.stringify(n.usageLimits),
      current_period_start: n.currentPeriodStart,
      current_period_end: n.currentPeriodEnd,
      billing_period: n.billingPeriod,
      billing_anchor: n.billingAnchor,
      updated_at: n.updatedAt,
    })),
  );
  const set = sql`status = v.status, cancelled_at = v.cancelled_at, cancel_at_period_end = v.cancel_at_period_end,
    scheduled_change = v.scheduled_change, offering_id = v.offering_id, price_version_id = v.price_version_id, discount = v.discount,
    usage_limits = v.usage_limits, current_period_start = v.current_period_start, current_period_end = v.current_period_end, billing_period = v.billing_period,
    billing_anchor = v.billing_anchor, version = v.version, updated_at = v.updated_at`;
  // The rows travel as one JSON parameter, so the statement's text is the same for any count.
  const from = isPostgres(db)
    ? sql`json_to_recordset(${rows}::json) as v(id text, read_version integer, version integer, status text, cancelled_at bigint,
        cancel_at_period_end integer, scheduled_change text, offering_id text, price_version_id text, discount text, usage_limits text, current_period_start bigint,
        current_period_end bigint, billing_period text, billing_anchor bigint, updated_at bigint)`
    : sql`(select value ->> 'id' as id, value ->> 'read_version' as read_version, value ->> 'version' as version, value ->> 'status' as status,
        value ->> 'cancelled_at' as cancelled_at, value ->> 'cancel_at_period_end' as cancel_at_period_end,
        value ->> 'scheduled_change' as scheduled_change, value ->> 'offering_id' as offering_id,
        value ->> 'price_version_id' as price_version_id, value ->> 'discount' as discount, value ->> 'usage_limits' as usage_limits,
        value ->> 'current_period_start' as current_period_start,
        value ->> 'current_period_end' as current_period_end, value ->> 'billing_period' as billing_period,
        value ->> 'billing_anchor' as billing_anchor, value ->> 'updated_at' as updated_at from json_each(${rows})) as v`;
  const r = await sql`update subscriptions set ${set} from ${from}
    where subscriptions.workspace_id = ${tenant.workspaceId} and subscriptions.environment = ${tenant.environment}
      and subscriptions.id = v.id and subscriptions.version = v.read_version`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/** An active subscription with an ALERT usage limit, as stored (usageLimits is JSON text). */
export interface AlertSubscriptionRow {
  id: string;
  customerId: string;
  usageLimits: string;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  billingPeriod: string;
  billingAnchor: number;
  periodAlignment: string;
}

/** The active subscriptions with ALERT limits among some customers; runs on every ingestion write. */
export async function findActiveAlertSubscriptions(db: Db, tenant: Tenant, customerIds: readonly string[]): Promise<AlertSubscriptionRow[]> {
  return (
    db
      .selectFrom('subscriptions')
      .select(['id', 'customerId', 'usageLimits', 'currentPeriodStart', 'currentPeriodEnd', 'billingPeriod', 'billingAnchor', 'periodAlignment'])
      .$call(forTenant(tenant))
      .where('customerId', 'in', customerIds)
      .where('status', '<>', 'CANCELLED')
      // A literal pattern: SQLite prepares a statement again whenever a LIKE pattern is a bound
      // parameter (26-31 µs against 6 µs here), and this runs on every ingestion write.
      .where('usageLimits', 'like', sql.lit('%ALERT%'))
      .execute()
  );
}

/**
 * The live subscriptions whose period ended at or before `now`, across tenants, oldest end first:
 * what the renewal job closes. With a test clock, only that clock's (in its tenant), else only
 * those on no clock.
 */
export async function listDueSubscriptions(
  db: Db,
  now: number,
  opts: { testClock: { tenant: Tenant; id: string } | null; limit: number },
): Promise<Array<{ id: string; workspaceId: string; environment: Environment; currentPeriodEnd: number }>> {
  let q = db
    .selectFrom('subscriptions')
    .select(['id', 'workspaceId', 'environment', 'currentPeriodEnd'])
    .where('status', '<>', sql.lit('CANCELLED'))
    .where('currentPeriodEnd', '<=', now);
  q = opts.testClock ? q.$call(forTenant(opts.testClock.tenant)).where('testClockId', '=', opts.testClock.id) : q.where('testClockId', 'is', null);
  const rows = await q.orderBy('currentPeriodEnd').orderBy('id').limit(opts.limit).execute();
  return rows.map((r) => ({ ...r, environment: r.environment as Environment, currentPeriodEnd: Number(r.currentPeriodEnd) }));
}

/**
 * Subscriptions read to be renewed, in the order their periods end: on PostgreSQL their rows are
 * locked until the commit, and rows another node holds are skipped, so two nodes never renew the
 * same one at once. SQLite has one writer, which serializes renewals by itself.
 */
export async function lockSubscriptionsForRenewal(db: Db, postgres: boolean, tenant: Tenant, ids: readonly string[]): Promise<Subscription[]> {
  if (ids.length === 0) return [];
  let q = db.selectFrom('subscriptions').selectAll().$call(forTenant(tenant)).where('id', 'in', ids).orderBy('currentPeriodEnd').orderBy('id');
  if (postgres) q = q.forUpdate().skipLocked();
  return (await q.execute()).map(toSubscription);
}

/** Counts a test clock's live subscriptions whose period ends at or before `until`. */
export async function countDueOnTestClock(db: Db, tenant: Tenant, testClockId: string, until: number): Promise<number> {
  const r = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .$call(forTenant(tenant))
    .where('testClockId', '=', testClockId)
    .where('status', '<>', sql.lit('CANCELLED'))
    .where('currentPeriodEnd', '<=', until)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Subscriptions with a plan change waiting for its payment, on real time (no test clock) or on one
 * test clock: few at any time (a change waits at most 23 hours), so they are all read.
 */
export async function listWithPendingUpdates(
  db: Db,
  where: { tenant: Tenant; id: string } | null,
  limit: number,
): Promise<Array<{ tenant: Tenant; subscription: Subscription }>> {
  let q = db.selectFrom('subscriptions').selectAll().where('pendingUpdate', 'is not', null);
  q = where ? q.$call(forTenant(where.tenant)).where('testClockId', '=', where.id) : q.where('testClockId', 'is', null);
  const rows = await q.orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ tenant: { workspaceId: r.workspaceId, environment: r.environment as Environment }, subscription: toSubscription(r) }));
}
