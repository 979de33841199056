import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { CreditNoteTable } from '../../db/tables/billing.table.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { CreditNote, CreditNoteLine, CreditNoteReason } from './credit-note.js';

const toCreditNote = (r: Selectable<CreditNoteTable>): CreditNote => ({
  id: r.id,
  invoiceId: r.invoiceId,
  customerId: r.customerId,
  subscriptionId: r.subscriptionId,
  number: r.number,
  status: r.status as CreditNote['status'],
  reason: r.reason as CreditNoteReason,
  memo: r.memo,
  currency: r.currency,
  lines: JSON.parse(r.lines) as CreditNoteLine[],
  total: r.total,
  metadata: parseMetadata(r.metadata),
  voidedAt: r.voidedAt === null ? null : Number(r.voidedAt),
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

export async function insertCreditNote(db: Db, tenant: Tenant, c: CreditNote): Promise<void> {
  await db
    .insertInto('creditNotes')
    .values({ ...c, workspaceId: tenant.workspaceId, environment: tenant.environment, lines: JSON.stringify(c.lines), metadata: JSON.stringify(c.metadata) })
    .execute();
}

export async function findCreditNote(db: Db, tenant: Tenant, id: string): Promise<CreditNote | null> {
  const r = await db.selectFrom('creditNotes').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toCreditNote(r) : null;
}

export async function listCreditNotes(db: Db, tenant: Tenant, f: PageParams & { invoiceId?: string; customerId?: string }): Promise<Page<CreditNote>> {
  let q = db.selectFrom('creditNotes').selectAll().$call(forTenant(tenant));
  if (f.invoiceId !== undefined) q = q.where('invoiceId', '=', f.invoiceId);
  if (f.customerId !== undefined) q = q.where('customerId', '=', f.customerId);
  const { items, hasMore } = await pageById(q, 'credit_notes', f);
  return { items: items.map(toCreditNote), hasMore };
}
