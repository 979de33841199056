import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { SecretBoxError } from '../../lib/secret-box.js';
import { recordSecretsReencrypted, type ReencryptionTally } from '../audit/secrets-reencrypted.js';
import type { Actor } from '../../lib/operation-context.js';
import { webhookSourcesChanged } from './delivery-source.js';
import { secretAssociatedData } from './webhook-source.js';
import { listSealedSecrets, replaceSealedSecret } from './webhook-source.repository.js';

/** Sources' secrets; `unreadable` names the sources no configured key opens. */
export type ReencryptResult = ReencryptionTally;

/**
 * Key rotation, step two: with the new key first in TOLLGATE_ENCRYPTION_KEYS and the old one
 * still listed, every secret sealed by another key is opened and sealed again by the current
 * one. Then the old key can be removed. All or nothing: one transaction, one audit event.
 */
export async function reencryptSecrets(deps: Deps, actor: Actor, correlationId: string): Promise<ReencryptResult> {
  const currentKeyId = deps.secrets.currentKeyId;
  const result = await inTransaction(deps.db, async (trx) => {
    const rows = await listSealedSecrets(trx);
    const unreadable: string[] = [];
    let reencrypted = 0;
    for (const row of rows) {
      if (row.secretKeyId === currentKeyId) continue;
      const aad = secretAssociatedData(row.id);
      try {
        const plaintext = deps.secrets.open({ ciphertext: row.secretCiphertext, keyId: row.secretKeyId }, aad);
        await replaceSealedSecret(
          trx,
          { workspaceId: row.workspaceId, environment: row.environment as 'test' | 'live' },
          row.id,
          deps.secrets.seal(plaintext, aad),
        );
        reencrypted += 1;
      } catch (err) {
        if (!(err instanceof SecretBoxError)) throw err;
        unreadable.push(row.id);
      }
    }
    const tally = { currentKeyId, total: rows.length, reencrypted, unreadable };
    await recordSecretsReencrypted(trx, deps, actor, correlationId, 'webhook_sources', tally);
    return tally;
  });
  await webhookSourcesChanged(deps);
  return result;
}
