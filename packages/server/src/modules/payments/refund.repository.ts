import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { RefundTable } from '../../db/tables/refund.table.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Refund, RefundMethod, RefundStatus } from './refund.js';

const toRefund = (r: Selectable<RefundTable>): Refund => ({
  id: r.id,
  creditNoteId: r.creditNoteId,
  invoiceId: r.invoiceId,
  customerId: r.customerId,
  paymentId: r.paymentId,
  method: r.method as RefundMethod,
  status: r.status as RefundStatus,
  amount: r.amount,
  currency: r.currency,
  idempotencyKey: r.idempotencyKey,
  providerReference: r.providerReference,
  failureCode: r.failureCode,
  failureMessage: r.failureMessage,
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

export async function insertRefunds(db: Db, tenant: Tenant, refunds: readonly Refund[]): Promise<void> {
  if (refunds.length === 0) return;
  await db
    .insertInto('refunds')
    .values(refunds.map((r) => ({ ...r, workspaceId: tenant.workspaceId, environment: tenant.environment })))
    .execute();
}

/** Writes a refund's outcome (or touches a pending one the reconciliation asked about). */
export async function saveRefund(db: Db, tenant: Tenant, r: Refund): Promise<void> {
  await db
    .updateTable('refunds')
    .set({ status: r.status, providerReference: r.providerReference, failureCode: r.failureCode, failureMessage: r.failureMessage, updatedAt: r.updatedAt })
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('id', '=', r.id)
    .execute();
}

export async function findRefund(db: Db, tenant: Tenant, id: string): Promise<Refund | null> {
  const r = await db
    .selectFrom('refunds')
    .selectAll()
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('id', '=', id)
    .executeTakeFirst();
  return r ? toRefund(r) : null;
}

/** A tenant's refunds by one of their keys, oldest first (an invoice has a handful). */
export async function listRefundsBy(db: Db, tenant: Tenant, column: 'invoiceId' | 'creditNoteId' | 'paymentId', value: string): Promise<Refund[]> {
  const rows = await db
    .selectFrom('refunds')
    .selectAll()
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where(column, '=', value)
    .orderBy('id')
    .limit(1_000)
    .execute();
  return rows.map(toRefund);
}

/** Provider refunds of any tenant still pending and last touched before `before`, oldest first (the reconciliation). */
export async function listPendingRefunds(db: Db, before: number, limit: number): Promise<Array<{ tenant: Tenant; refund: Refund }>> {
  const rows = await db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'pending')
    .where('updatedAt', '<', before)
    .orderBy('updatedAt')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ tenant: { workspaceId: r.workspaceId, environment: r.environment as Environment }, refund: toRefund(r) }));
}

/** A tenant's refunds, newest first, a page at a time, optionally of one credit note, invoice or payment. */
export async function listRefunds(
  db: Db,
  tenant: Tenant,
  f: PageParams & { creditNoteId?: string; invoiceId?: string; paymentId?: string },
): Promise<Page<Refund>> {
  let q = db.selectFrom('refunds').selectAll().$call(forTenant(tenant));
  if (f.creditNoteId !== undefined) q = q.where('creditNoteId', '=', f.creditNoteId);
  if (f.invoiceId !== undefined) q = q.where('invoiceId', '=', f.invoiceId);
  if (f.paymentId !== undefined) q = q.where('paymentId', '=', f.paymentId);
  const { items, hasMore } = await pageById(q, 'refunds', f);
  return { items: items.map(toRefund), hasMore };
}
