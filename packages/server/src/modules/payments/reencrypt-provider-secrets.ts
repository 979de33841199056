import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { Actor } from '../../lib/operation-context.js';
import { SecretBoxError, type Sealed } from '../../lib/secret-box.js';
import { recordSecretsReencrypted, type ReencryptionTally } from '../audit/secrets-reencrypted.js';
import { sealedFor } from './payment-provider-connection.js';
import { listAllPaymentProviders, updatePaymentProvider } from './payment-provider-connection.repository.js';

/**
 * `tollgate secrets re-encrypt`, for payment providers' secrets (after webhook sources' and
 * endpoints'): every value sealed by another key than the current one is opened and sealed again,
 * in one transaction with one audit event. A connection no key opens is left as it is and named.
 */
export async function reencryptProviderSecrets(deps: Deps, actor: Actor, correlationId: string): Promise<ReencryptionTally> {
  const current = deps.secrets.currentKeyId;
  return inTransaction(deps.db, async (trx) => {
    const unreadable: string[] = [];
    let total = 0;
    let reencrypted = 0;
    for (const c of await listAllPaymentProviders(trx)) {
      const sealed = [c.secretKey, c.webhookSecret].filter((s) => s !== null);
      total += sealed.length;
      const stale = sealed.filter((s) => s.keyId !== current).length;
      if (stale === 0) continue;
      try {
        const reseal = (v: Sealed, field: 'secretKey' | 'webhookSecret') =>
          v.keyId === current ? v : deps.secrets.seal(deps.secrets.open(v, sealedFor(c.id, field)), sealedFor(c.id, field));
        await updatePaymentProvider(trx, c, {
          ...c,
          secretKey: reseal(c.secretKey, 'secretKey'),
          webhookSecret: c.webhookSecret === null ? null : reseal(c.webhookSecret, 'webhookSecret'),
        });
        reencrypted += stale;
      } catch (err) {
        if (!(err instanceof SecretBoxError)) throw err;
        unreadable.push(c.id);
      }
    }
    const tally = { currentKeyId: current, total, reencrypted, unreadable };
    await recordSecretsReencrypted(trx, deps, actor, correlationId, 'payment_providers', tally);
    return tally;
  });
}
