import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { Actor } from '../../lib/operation-context.js';
import { SecretBoxError, type Sealed } from '../../lib/secret-box.js';
import { recordSecretsReencrypted, type ReencryptionTally } from '../audit/secrets-reencrypted.js';
import { secretAssociatedData } from './webhook-endpoint.js';
import { listSealedEndpointSecrets, replaceSealedEndpointSecrets } from './webhook-endpoint.repository.js';

/** Sealed values: an endpoint's secret, and its previous one when it has one. */
export type ReencryptEndpointsResult = ReencryptionTally;

/**
 * `tollgate secrets re-encrypt`, for endpoint signing secrets (the CLI runs it after the webhook
 * sources'): every value sealed by another key than the current one is opened and sealed again,
 * both columns, in one transaction with one audit event. An endpoint with a value no key opens
 * is left as it is and named.
 */
export async function reencryptEndpointSecrets(deps: Deps, actor: Actor, correlationId: string): Promise<ReencryptEndpointsResult> {
  const currentKeyId = deps.secrets.currentKeyId;
  return inTransaction(deps.db, async (trx) => {
    const rows = await listSealedEndpointSecrets(trx);
    const unreadable: string[] = [];
    let total = 0;
    let reencrypted = 0;
    for (const row of rows) {
      const aad = secretAssociatedData(row.id);
      const values = [row.secret, row.previousSecret];
      total += values.filter((v) => v !== null).length;
      const stale = values.filter((v): v is Sealed => v !== null && v.keyId !== currentKeyId).length;
      if (stale === 0) continue;
      const reseal = (v: Sealed | null) => (v === null || v.keyId === currentKeyId ? v : deps.secrets.seal(deps.secrets.open(v, aad), aad));
      try {
        await replaceSealedEndpointSecrets(trx, row, row.id, reseal(row.secret)!, reseal(row.previousSecret));
        reencrypted += stale;
      } catch (err) {
        if (!(err instanceof SecretBoxError)) throw err;
        unreadable.push(row.id);
      }
    }
    const tally = { currentKeyId, total, reencrypted, unreadable };
    await recordSecretsReencrypted(trx, deps, actor, correlationId, 'webhook_endpoints', tally);
    return tally;
  });
}
