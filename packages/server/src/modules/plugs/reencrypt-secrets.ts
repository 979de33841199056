import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { SecretBoxError } from '../../lib/secret-box.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { Actor } from '../../lib/operation-context.js';
import { webhookSourcesChanged } from './delivery-source.js';
import { secretAssociatedData } from './webhook-source.js';
import { listSealedSecrets, replaceSealedSecret } from './webhook-source.repository.js';

export interface ReencryptResult {
  currentKeyId: string;
  total: number;
  reencrypted: number;
  /** Sources whose secret no configured key opens (the old key was removed too early). */
  unreadable: string[];
}

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
    await recordAudit(
      trx,
      deps,
      { workspaceId: null, environment: null, actor, correlationId, source: 'cli' },
      {
        eventType: 'system.secrets_reencrypted',
        severity: unreadable.length > 0 ? 'WARN' : 'INFO',
        payload: { currentKeyId, total: rows.length, reencrypted, unreadable },
      },
    );
    return { currentKeyId, total: rows.length, reencrypted, unreadable };
  });
  await webhookSourcesChanged(deps);
  return result;
}
