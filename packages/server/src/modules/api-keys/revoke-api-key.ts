import type { Deps } from '../../deps.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { ApiKey } from './api-key.js';
import { findApiKey, revokeApiKeyRow } from './api-key.repository.js';
import { assertHoldsScopes } from './create-api-key.js';
import type { Credential } from '../../lib/principal.js';
import { findKeyForCaller } from './replace-api-key.js';

/**
 * Revokes at once, with no grace period, on every node. Revoking a revoked key is a no-op that
 * returns it (DELETE is idempotent). A workspace key may revoke only keys whose scopes it holds.
 */
export async function revokeApiKey(deps: Deps, ctx: OperationContext, id: string, caller: Credential | null): Promise<ApiKey> {
  const key = await inTransaction(deps.db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    const target = await findKeyForCaller(txDeps, ctx, id, caller);
    assertHoldsScopes(caller, target.scopes, 'revoke');
    const changed = await revokeApiKeyRow(trx, ctx, id, deps.clock.now());
    if (changed) {
      await recordAudit(trx, deps, ctx, { eventType: 'api_key.revoked', targetType: 'api_key', targetId: id, payload: { reason: 'requested' } });
    }
    return (await findApiKey(trx, ctx, id)) as ApiKey;
  });
  await invalidateCredentials(deps);
  return key;
}
