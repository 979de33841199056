import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { runStatement, statementText } from '../../db/statement-text.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { Product, ProductKind } from './product.js';
import type { ProductTable } from '../../db/tables/product.table.js';

function toProduct(r: Selectable<ProductTable>): Product {
  return {
    id: r.id,
    environment: r.environment as Environment,
    name: r.name,
    kind: r.kind as ProductKind,
    description: r.description,
    metadata: parseMetadata(r.metadata),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export async function insertProduct(db: Db, tenant: Tenant, p: Product): Promise<void> {
  await db
    .insertInto('products')
    .values({ ...p, workspaceId: tenant.workspaceId, environment: tenant.environment, metadata: JSON.stringify(p.metadata) })
    .execute();
}

const PRODUCT_BY_ID = statementText('products.by-id', () => 'select * from products where workspace_id = ? and environment = ? and id = ?');

/** An entitlement check of a customer without a subscription asks this: text made once (db/statement-text.ts). */
export async function findProduct(db: Db, tenant: Tenant, id: string): Promise<Product | null> {
  const [r] = await runStatement<Selectable<ProductTable>>(db, PRODUCT_BY_ID, [tenant.workspaceId, tenant.environment, id]);
  return r ? toProduct(r) : null;
}

export async function listProducts(db: Db, tenant: Tenant, page: PageParams & { kind?: ProductKind }): Promise<Page<Product>> {
  let q = db.selectFrom('products').selectAll().$call(forTenant(tenant));
  if (page.kind !== undefined) q = q.where('kind', '=', page.kind);
  const { items, hasMore } = await pageById(q, 'products', page);
  return { items: items.map(toProduct), hasMore };
}

export async function updateProductRow(db: Db, tenant: Tenant, p: Product): Promise<void> {
  await db
    .updateTable('products')
    .set({ name: p.name, description: p.description, metadata: JSON.stringify(p.metadata), updatedAt: p.updatedAt })
    .$call(forTenant(tenant))
    .where('id', '=', p.id)
    .execute();
}
