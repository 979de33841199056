import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PaymentTable } from '../../db/tables/payment.table.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Payment, PaymentAttemptStatus, PaymentProviderName, PaymentTrigger } from './payment.js';

function toPayment(r: Selectable<PaymentTable>): Payment {
  const n = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    id: r.id,
    invoiceId: r.invoiceId,
    customerId: r.customerId,
    provider: r.provider as PaymentProviderName,
    status: r.status as PaymentAttemptStatus,
    amount: r.amount,
    currency: r.currency,
    reference: r.reference,
    paidAt: n(r.paidAt),
    attempt: n(r.attempt),
    idempotencyKey: r.idempotencyKey,
    providerReference: r.providerReference,
    paymentMethodId: r.paymentMethodId,
    failureCode: r.failureCode,
    failureMessage: r.failureMessage,
    actionUrl: r.actionUrl,
    trigger: r.trigger as PaymentTrigger | null,
    amountRefunded: r.amountRefunded,
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

export async function insertPayment(db: Db, tenant: Tenant, p: Payment): Promise<void> {
  await insertPayments(db, tenant, [p]);
}

/** Several attempts in one statement (the billing run claims a group of invoices at once). */
export async function insertPayments(db: Db, tenant: Tenant, payments: readonly Payment[]): Promise<void> {
  if (payments.length === 0) return;
  await db
    .insertInto('payments')
    .values(payments.map((p) => ({ ...p, workspaceId: tenant.workspaceId, environment: tenant.environment })))
    .execute();
}

/** Writes what an outcome changes of an attempt (or a refund of a payment). */
export async function savePayment(db: Db, tenant: Tenant, p: Payment): Promise<void> {
  await db
    .updateTable('payments')
    .set({
      status: p.status,
      paidAt: p.paidAt,
      providerReference: p.providerReference,
      failureCode: p.failureCode,
      failureMessage: p.failureMessage,
      actionUrl: p.actionUrl,
      amountRefunded: p.amountRefunded,
      updatedAt: p.updatedAt,
    })
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('id', '=', p.id)
    .execute();
}

/** A tenant's payments by id (those absent are left out). */
export async function findPayments(db: Db, tenant: Tenant, ids: readonly string[]): Promise<Payment[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('payments')
    .selectAll()
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('id', 'in', ids)
    .execute();
  return rows.map(toPayment);
}

/** A payment by one of its keys: its id, or the provider's object (Stripe: its PaymentIntent) when the metadata does not name it. */
async function findPaymentBy(db: Db, tenant: Tenant, column: 'id' | 'providerReference', value: string): Promise<Payment | null> {
  const r = await db
    .selectFrom('payments')
    .selectAll()
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where(column, '=', value)
    .executeTakeFirst();
  return r ? toPayment(r) : null;
}

export const findPayment = (db: Db, tenant: Tenant, id: string) => findPaymentBy(db, tenant, 'id', id);
export const findPaymentByProviderReference = (db: Db, tenant: Tenant, reference: string) => findPaymentBy(db, tenant, 'providerReference', reference);

/** An invoice's payments and attempts, oldest first (at most a few: an invoice is paid in a handful of parts and tries). */
export async function listInvoicePayments(db: Db, tenant: Tenant, invoiceId: string): Promise<Payment[]> {
  const rows = await db
    .selectFrom('payments')
    .selectAll()
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('invoiceId', '=', invoiceId)
    .orderBy('id')
    .limit(1_000)
    .execute();
  return rows.map(toPayment);
}

export interface UnsettledAttempt {
  tenant: Tenant;
  payment: Payment;
}

/**
 * Provider attempts of any tenant whose outcome has not arrived: pending or processing ones last
 * touched before `before`, requires_action ones before `actionBefore` (the buyer may take days, so
 * the provider is asked less often). Oldest first, at most `limit`.
 */
export async function listUnsettledAttempts(db: Db, bounds: { before: number; actionBefore: number }, limit: number): Promise<UnsettledAttempt[]> {
  const rows = await db
    .selectFrom('payments')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', ['pending', 'processing']), eb('updatedAt', '<', bounds.before)]),
        eb.and([eb('status', '=', 'requires_action'), eb('updatedAt', '<', bounds.actionBefore)]),
      ]),
    )
    .orderBy('updatedAt')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ tenant: { workspaceId: r.workspaceId, environment: r.environment as Environment }, payment: toPayment(r) }));
}

/** Touches an unsettled attempt the reconciliation asked about, so it is asked again only after the bound. */
export async function touchPayment(db: Db, tenant: Tenant, id: string, now: number): Promise<void> {
  await db
    .updateTable('payments')
    .set({ updatedAt: now })
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('id', '=', id)
    .execute();
}
