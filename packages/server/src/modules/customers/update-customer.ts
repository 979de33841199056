import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Customer, UpdateCustomerInput } from './customer.js';
import { updateCustomerRow } from './customer.repository.js';
import { duplicateExternalId } from './create-customer.js';
import { customerRefsChanged, requireCustomerByRef } from './customer-refs.js';

/**
 * Fields present in the body replace the stored ones; null clears them; absent ones stay. `ref` is
 * the customer's cus_ id or externalId (an id match wins).
 */
export async function updateCustomer(deps: Deps, ctx: OperationContext, ref: string, input: UpdateCustomerInput): Promise<Customer> {
  try {
    const updated = await inTransaction(deps.db, async (trx) => {
      const current = await requireCustomerByRef(trx, ctx, ref, 'path.id');
      const next: Customer = { ...current, ...input, updatedAt: deps.clock.now() };
      await updateCustomerRow(trx, ctx, next);
      await recordAudit(trx, deps, ctx, {
        eventType: 'customer.updated',
        targetType: 'customer',
        targetId: current.id,
        payload: { changed: Object.keys(input) },
      });
      return next;
    });
    // Webhooks resolve tenant_id to a customer through a cache of externalIds.
    if (input.externalId !== undefined) await customerRefsChanged(deps);
    return updated;
  } catch (err) {
    if (isUniqueViolation(err) && input.externalId) throw duplicateExternalId(input.externalId, err);
    throw err;
  }
}
