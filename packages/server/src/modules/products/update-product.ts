import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Product, UpdateProductInput } from './product.js';
import { findProduct, updateProductRow } from './product.repository.js';

export async function updateProduct(deps: Deps, ctx: OperationContext, id: string, input: UpdateProductInput): Promise<Product> {
  return inTransaction(deps.db, async (trx) => {
    const current = await findProduct(trx, ctx, id);
    if (!current) throw notFound('product', id);
    const next: Product = { ...current, ...input, updatedAt: deps.clock.now() };
    await updateProductRow(trx, ctx, next);
    await recordAudit(trx, deps, ctx, {
      eventType: 'product.updated',
      targetType: 'product',
      targetId: id,
      payload: { changed: Object.keys(input) },
    });
    return next;
  });
}
