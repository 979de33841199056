import type { Deps } from '../../deps.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import { inTransaction } from '../../db/transaction.js';
import { notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { ClientCredential } from './client-credential.js';
import { findClientCredential, revokeClientCredentialRow } from './client-credential.repository.js';

/** Revokes the credential and with it every access token issued to it, on every node at once. */
export async function revokeClientCredential(deps: Deps, ctx: OperationContext, id: string): Promise<ClientCredential> {
  const credential = await inTransaction(deps.db, async (trx) => {
    if (!(await findClientCredential(trx, ctx, id))) throw notFound('client credential', id);
    if (await revokeClientCredentialRow(trx, ctx, id, deps.clock.now())) {
      await recordAudit(trx, deps, ctx, {
        eventType: 'client_credential.revoked',
        targetType: 'client_credential',
        targetId: id,
        payload: { reason: 'requested' },
      });
    }
    return (await findClientCredential(trx, ctx, id)) as ClientCredential;
  });
  await invalidateCredentials(deps);
  return credential;
}
