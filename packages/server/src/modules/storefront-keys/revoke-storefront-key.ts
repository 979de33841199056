import type { Deps } from '../../deps.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import { inTransaction } from '../../db/transaction.js';
import { notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { StorefrontKey } from './storefront-key.js';
import { findStorefrontKey, revokeStorefrontKeyRow } from './storefront-key.repository.js';

export async function revokeStorefrontKey(deps: Deps, ctx: OperationContext, id: string): Promise<StorefrontKey> {
  const key = await inTransaction(deps.db, async (trx) => {
    if (!(await findStorefrontKey(trx, ctx, id))) throw notFound('storefront key', id);
    if (await revokeStorefrontKeyRow(trx, ctx, id, deps.clock.now())) {
      await recordAudit(trx, deps, ctx, { eventType: 'storefront_key.revoked', targetType: 'storefront_key', targetId: id });
    }
    return (await findStorefrontKey(trx, ctx, id)) as StorefrontKey;
  });
  await invalidateCredentials(deps);
  return key;
}
