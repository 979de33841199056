import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { runStatement, statementText } from '../../db/statement-text.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { Customer } from './customer.js';
import type { CustomerTable } from '../../db/tables/customer.table.js';

function toCustomer(r: Selectable<CustomerTable>): Customer {
  return {
    id: r.id,
    environment: r.environment as Environment,
    externalId: r.externalId,
    name: r.name,
    email: r.email,
    metadata: parseMetadata(r.metadata),
    testClockId: r.testClockId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export async function insertCustomer(db: Db, tenant: Tenant, c: Customer): Promise<void> {
  await db
    .insertInto('customers')
    .values({ ...c, workspaceId: tenant.workspaceId, environment: tenant.environment, metadata: JSON.stringify(c.metadata) })
    .execute();
}

export async function findCustomer(db: Db, tenant: Tenant, id: string): Promise<Customer | null> {
  const r = await db.selectFrom('customers').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toCustomer(r) : null;
}

export async function listCustomers(db: Db, tenant: Tenant, page: PageParams & { externalId?: string }): Promise<Page<Customer>> {
  let q = db.selectFrom('customers').selectAll().$call(forTenant(tenant));
  if (page.externalId !== undefined) q = q.where('externalId', '=', page.externalId);
  const { items, hasMore } = await pageById(q, 'customers', page);
  return { items: items.map(toCustomer), hasMore };
}

export async function updateCustomerRow(db: Db, tenant: Tenant, c: Customer): Promise<void> {
  await db
    .updateTable('customers')
    .set({ externalId: c.externalId, name: c.name, email: c.email, metadata: JSON.stringify(c.metadata), updatedAt: c.updatedAt })
    .$call(forTenant(tenant))
    .where('id', '=', c.id)
    .execute();
}

/** Maps each reference (a cus_ id or an externalId) to the customer's id; unknown ones are absent. */
// Two index look-ups joined by UNION ALL: written as one OR, SQLite scans the tenant's customers.
const ONE_CUSTOMER_REF = statementText(
  'customers.one-ref',
  () =>
    'select id, external_id from customers where workspace_id = ? and environment = ? and id = ? ' +
    'union all select id, external_id from customers where workspace_id = ? and environment = ? and external_id = ?',
);

export async function resolveCustomerRefs(db: Db, tenant: Tenant, refs: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (refs.length === 0) return out;
  const { workspaceId: ws, environment: env } = tenant;
  // One reference (every entitlement check not answered from the cache): text made once (db/statement-text.ts).
  const byColumn = (column: 'id' | 'externalId') => db.selectFrom('customers').select(['id', 'externalId']).$call(forTenant(tenant)).where(column, 'in', refs);
  const rows =
    refs.length === 1
      ? await runStatement<{ id: string; externalId: string | null }>(db, ONE_CUSTOMER_REF, [ws, env, refs[0], ws, env, refs[0]])
      : await byColumn('id').unionAll(byColumn('externalId')).execute();
  // An id match wins over an externalId that happens to look like an id.
  for (const r of rows) if (r.externalId !== null) out.set(r.externalId, r.id);
  for (const r of rows) out.set(r.id, r.id);
  return out;
}

/** Among these customers, those that live on a test clock, with the clock's id. */
export async function findClockedCustomers(db: Db, tenant: Tenant, customerIds: readonly string[]): Promise<Map<string, string>> {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('customers')
    .select(['id', 'testClockId'])
    .$call(forTenant(tenant))
    .where('id', 'in', [...customerIds])
    .where('testClockId', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.id, r.testClockId as string]));
}
