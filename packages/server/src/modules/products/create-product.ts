import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { CreateProductInput, Product } from './product.js';
import { insertProduct } from './product.repository.js';

export async function createProduct(deps: Deps, ctx: OperationContext, input: CreateProductInput): Promise<Product> {
  const now = deps.clock.now();
  const product: Product = {
    id: deps.ids.next('product'),
    environment: ctx.environment,
    name: input.name,
    kind: input.kind,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertProduct(trx, ctx, product);
    await recordAudit(trx, deps, ctx, {
      eventType: 'product.created',
      targetType: 'product',
      targetId: product.id,
      payload: { name: product.name, kind: product.kind },
    });
  });
  return product;
}
