import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { revokeCredential } from '../credentials/revoke-credential.js';
import type { ClientCredential } from './client-credential.js';
import { findClientCredential, revokeClientCredentialRow } from './client-credential.repository.js';

/** Revokes the credential and with it every access token issued to it, on every node at once. */
export function revokeClientCredential(deps: Deps, ctx: OperationContext, id: string): Promise<ClientCredential> {
  return revokeCredential(deps, ctx, {
    find: async (trx) => {
      const credential = await findClientCredential(trx, ctx, id);
      if (!credential) throw notFound('client credential', id);
      return credential;
    },
    revoke: (trx, now) => revokeClientCredentialRow(trx, ctx, id, now),
    event: { eventType: 'client_credential.revoked', targetType: 'client_credential', targetId: id, payload: { reason: 'requested' } },
  });
}
