import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { InvoiceTable } from '../../db/tables/billing.table.js';
import type { Environment } from '../../lib/crypto.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { BillingReason, Invoice, InvoiceStatus, IssuedLine } from './invoice.js';
import type { CollectionMethod } from './billing-settings.js';
import type { PaymentAttemptStatus } from '../payments/payment.js';

function toInvoice(r: Selectable<InvoiceTable>): Invoice {
  const n = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    id: r.id,
    customerId: r.customerId,
    subscriptionId: r.subscriptionId,
    cycleKey: r.cycleKey,
    billingReason: r.billingReason as BillingReason,
    status: r.status as InvoiceStatus,
    number: r.number,
    currency: r.currency,
    periodStart: Number(r.periodStart),
    periodEnd: Number(r.periodEnd),
    allowanceFrom: n(r.allowanceFrom),
    priceVersionId: r.priceVersionId,
    lines: JSON.parse(r.lines) as IssuedLine[],
    subtotal: r.subtotal,
    total: r.total,
    creditedTotal: r.creditedTotal,
    amountPaid: r.amountPaid,
    collectionMethod: r.collectionMethod as CollectionMethod,
    dueDate: n(r.dueDate),
    attemptCount: Number(r.attemptCount),
    nextPaymentAttemptAt: n(r.nextPaymentAttemptAt),
    paymentFailedAt: n(r.paymentFailedAt),
    latestAttemptStatus: r.latestAttemptStatus as PaymentAttemptStatus | null,
    lastPaymentError: r.lastPaymentError === null ? null : (JSON.parse(r.lastPaymentError) as Invoice['lastPaymentError']),
    paymentActionUrl: r.paymentActionUrl,
    testClockId: r.testClockId,
    finalizeAt: Number(r.finalizeAt),
    finalizedAt: n(r.finalizedAt),
    paidAt: n(r.paidAt),
    voidedAt: n(r.voidedAt),
    markedUncollectibleAt: n(r.markedUncollectibleAt),
    metadata: parseMetadata(r.metadata),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

function row(tenant: Tenant, i: Invoice) {
  return {
    ...i,
    workspaceId: tenant.workspaceId,
    environment: tenant.environment,
    lines: JSON.stringify(i.lines),
    metadata: JSON.stringify(i.metadata),
    lastPaymentError: i.lastPaymentError === null ? null : JSON.stringify(i.lastPaymentError),
  };
}

/** Inserts a draft; false when the subscription already has an invoice with this cycle key (issued by another run). */
export async function insertInvoice(db: Db, tenant: Tenant, i: Invoice): Promise<boolean> {
  return (await insertInvoices(db, tenant, [i])) === 1;
}

/** Inserts invoices in one statement; how many were new (one whose cycle key exists is left out). */
export async function insertInvoices(db: Db, tenant: Tenant, invoices: readonly Invoice[]): Promise<number> {
  if (invoices.length === 0) return 0;
  const r = await db
    .insertInto('invoices')
    .values(invoices.map((i) => row(tenant, i)))
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'subscriptionId', 'cycleKey']).where('cycleKey', 'is not', null).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0);
}

export async function findInvoice(db: Db, tenant: Tenant, id: string, opts: { lock?: boolean } = {}): Promise<Invoice | null> {
  let q = db.selectFrom('invoices').selectAll().$call(forTenant(tenant)).where('id', '=', id);
  if (opts.lock) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? toInvoice(r) : null;
}

/**
 * A tenant's invoices by id, read to be changed: `wait` locks their rows until the commit (waiting
 * for another transaction's), `skip-locked` leaves out rows another transaction holds. Rows are
 * locked in id order, so two transactions never wait for each other in a cycle.
 */
export async function findInvoices(db: Db, tenant: Tenant, ids: readonly string[], lock: 'wait' | 'skip-locked' | null): Promise<Invoice[]> {
  if (ids.length === 0) return [];
  let q = db.selectFrom('invoices').selectAll().$call(forTenant(tenant)).where('id', 'in', ids).orderBy('id');
  if (lock) q = q.forUpdate();
  if (lock === 'skip-locked') q = q.skipLocked();
  return (await q.execute()).map(toInvoice);
}

/** Writes every mutable field of an invoice (its state, and a draft's lines and totals). */
export async function saveInvoice(db: Db, tenant: Tenant, i: Invoice): Promise<void> {
  await db
    .updateTable('invoices')
    .set({
      status: i.status,
      number: i.number,
      lines: JSON.stringify(i.lines),
      subtotal: i.subtotal,
      total: i.total,
      creditedTotal: i.creditedTotal,
      amountPaid: i.amountPaid,
      dueDate: i.dueDate,
      attemptCount: i.attemptCount,
      nextPaymentAttemptAt: i.nextPaymentAttemptAt,
      paymentFailedAt: i.paymentFailedAt,
      latestAttemptStatus: i.latestAttemptStatus,
      lastPaymentError: i.lastPaymentError === null ? null : JSON.stringify(i.lastPaymentError),
      paymentActionUrl: i.paymentActionUrl,
      finalizedAt: i.finalizedAt,
      paidAt: i.paidAt,
      voidedAt: i.voidedAt,
      markedUncollectibleAt: i.markedUncollectibleAt,
      updatedAt: i.updatedAt,
    })
    .$call(forTenant(tenant))
    .where('id', '=', i.id)
    .execute();
}

export interface InvoiceFilter extends PageParams {
  customerId?: string;
  subscriptionId?: string;
  status?: InvoiceStatus;
  /** Leave drafts out (what a customer sees: a draft may still change). */
  issuedOnly?: boolean;
  /** Invoices whose period overlaps [periodFrom, periodTo). */
  periodFrom?: number;
  periodTo?: number;
}

export async function listInvoices(db: Db, tenant: Tenant, f: InvoiceFilter): Promise<Page<Invoice>> {
  let q = db.selectFrom('invoices').selectAll().$call(forTenant(tenant));
  if (f.customerId !== undefined) q = q.where('customerId', '=', f.customerId);
  if (f.subscriptionId !== undefined) q = q.where('subscriptionId', '=', f.subscriptionId);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.issuedOnly) q = q.where('status', '!=', 'draft');
  if (f.periodFrom !== undefined) q = q.where('periodEnd', '>', f.periodFrom);
  if (f.periodTo !== undefined) q = q.where('periodStart', '<', f.periodTo);
  const { items, hasMore } = await pageById(q, 'invoices', f);
  return { items: items.map(toInvoice), hasMore };
}

/**
 * Subscriptions' issued invoices (not drafts, not void) whose period ended in [from, before):
 * those whose usage may have grown since they were finalized. Oldest first.
 */
export async function findIssuedInvoicesEndingBetween(
  db: Db,
  tenant: Tenant,
  subscriptionIds: readonly string[],
  from: number,
  before: number,
): Promise<Invoice[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('invoices')
    .selectAll()
    .$call(forTenant(tenant))
    .where('subscriptionId', 'in', subscriptionIds)
    .where('periodEnd', '>=', from)
    .where('periodEnd', '<=', before)
    .where('status', 'in', ['finalized', 'paid', 'uncollectible'])
    .orderBy('periodEnd')
    .orderBy('id')
    .execute();
  return rows.map(toInvoice);
}

/**
 * Drafts whose grace period has passed, across tenants (or of one test clock), in the order they
 * were due, so numbers follow periods.
 */
export async function listDraftsDue(
  db: Db,
  at: number,
  opts: { testClock: { tenant: Tenant; id: string } | null; limit: number },
): Promise<Array<{ id: string; workspaceId: string; environment: Environment }>> {
  let q = db.selectFrom('invoices').select(['id', 'workspaceId', 'environment']).where('status', '=', sql.lit('draft')).where('finalizeAt', '<=', at);
  q = opts.testClock ? q.$call(forTenant(opts.testClock.tenant)).where('testClockId', '=', opts.testClock.id) : q.where('testClockId', 'is', null);
  const rows = await q.orderBy('finalizeAt').orderBy('id').limit(opts.limit).execute();
  return rows.map((r) => ({ ...r, environment: r.environment as Environment }));
}

/**
 * A subscription's invoices with some of its cycle keys (create, cycle:<boundary>, change:<at>,
 * cancel:<at>): one index seek each. `lock` (PostgreSQL) holds them until the commit.
 */
export async function findInvoicesByCycleKeys(db: Db, tenant: Tenant, subscriptionId: string, cycleKeys: readonly string[], lock: boolean): Promise<Invoice[]> {
  if (cycleKeys.length === 0) return [];
  let q = db
    .selectFrom('invoices')
    .selectAll()
    .$call(forTenant(tenant))
    .where('subscriptionId', '=', subscriptionId)
    .where('cycleKey', 'in', cycleKeys)
    .orderBy('id');
  if (lock) q = q.forUpdate();
  return (await q.execute()).map(toInvoice);
}

/** A subscription's open invoices whose latest payment attempt failed or waits for the buyer, other than `exceptId`. */
export async function countFailingInvoices(db: Db, tenant: Tenant, subscriptionId: string, exceptId: string): Promise<number> {
  const r = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .$call(forTenant(tenant))
    .where('subscriptionId', '=', subscriptionId)
    .where('status', '=', sql.lit('finalized'))
    .where('latestAttemptStatus', 'in', ['failed', 'requires_action'])
    .where('id', '<>', exceptId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Open invoices whose next payment attempt is due at `at`: on real time (no test clock), or on one
 * test clock. Oldest first.
 */
export async function listCollectionsDue(
  db: Db,
  at: number,
  opts: { testClock: { tenant: Tenant; id: string } | null; limit: number },
): Promise<Array<{ id: string; workspaceId: string; environment: Environment }>> {
  let q = db
    .selectFrom('invoices')
    .select(['id', 'workspaceId', 'environment'])
    .where('nextPaymentAttemptAt', 'is not', null)
    .where('nextPaymentAttemptAt', '<=', at);
  q = opts.testClock ? q.$call(forTenant(opts.testClock.tenant)).where('testClockId', '=', opts.testClock.id) : q.where('testClockId', 'is', null);
  const rows = await q.orderBy('nextPaymentAttemptAt').orderBy('id').limit(opts.limit).execute();
  return rows.map((r) => ({ ...r, environment: r.environment as Environment }));
}

/** Clears the collection schedule of invoices with nothing more to collect (paid, voided, or no provider to charge with). */
export async function unscheduleCollections(db: Db, tenant: Tenant, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('invoices')
    .set({ nextPaymentAttemptAt: null, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', 'in', ids)
    .where('nextPaymentAttemptAt', 'is not', null)
    .execute();
}

/**
 * Writes, in one statement, what claiming a first attempt changes of each invoice (claimAttempt in
 * collect-invoice.ts: the first attempt pending, the schedule cleared). The invoices given must be
 * as claimAttempt left them.
 */
export async function markFirstAttemptsClaimed(db: Db, tenant: Tenant, claimed: readonly Invoice[]): Promise<void> {
  if (claimed.length === 0) return;
  const i = claimed[0]!;
  if (claimed.some((c) => c.attemptCount !== 1 || c.latestAttemptStatus !== 'pending' || c.nextPaymentAttemptAt !== null || c.updatedAt !== i.updatedAt)) {
    throw new Error('markFirstAttemptsClaimed: every invoice must be a first attempt claimed at one instant');
  }
  await db
    .updateTable('invoices')
    .set({ attemptCount: 1, nextPaymentAttemptAt: null, latestAttemptStatus: 'pending', paymentActionUrl: null, updatedAt: i.updatedAt })
    .$call(forTenant(tenant))
    .where(
      'id',
      'in',
      claimed.map((c) => c.id),
    )
    .where('attemptCount', '=', 0)
    .execute();
}

/** A customer's open invoices collected automatically whose payment failed or waits for the buyer (a new card retries them). */
export async function listFailingInvoicesOfCustomer(db: Db, tenant: Tenant, customerId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('invoices')
    .select('id')
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('status', '=', sql.lit('finalized'))
    .where('collectionMethod', '=', sql.lit('charge_automatically'))
    .where('latestAttemptStatus', 'in', ['failed', 'requires_action'])
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
