import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PaymentTable } from '../../db/tables/payment.table.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Payment, PaymentProviderName } from './payment.js';

function toPayment(r: Selectable<PaymentTable>): Payment {
  return {
    id: r.id,
    invoiceId: r.invoiceId,
    customerId: r.customerId,
    provider: r.provider as PaymentProviderName,
    status: r.status as Payment['status'],
    amount: r.amount,
    currency: r.currency,
    reference: r.reference,
    paidAt: r.paidAt === null ? null : Number(r.paidAt),
    createdAt: Number(r.createdAt),
  };
}

export async function insertPayment(db: Db, tenant: Tenant, p: Payment): Promise<void> {
  await db
    .insertInto('payments')
    .values({ ...p, workspaceId: tenant.workspaceId, environment: tenant.environment })
    .execute();
}

/** An invoice's payments, oldest first (at most a few: an invoice is paid in a handful of parts). */
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
