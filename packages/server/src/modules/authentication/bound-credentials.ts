import { recordAudit } from '../audit/audit-event.repository.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import { revokeKeysForSubscription } from '../api-keys/api-key.repository.js';
import { revokeClientCredentialsForSubscription } from '../client-credentials/client-credential.repository.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';

/** Product keys and client credentials, as cancelling their subscription revokes them. */
export const boundCredentials: BoundCredentials = {
  async revokeForSubscription(txDeps, ctx, subscriptionId, at) {
    const keyIds = await revokeKeysForSubscription(txDeps.db, ctx, subscriptionId, at);
    const clientCredentialIds = await revokeClientCredentialsForSubscription(txDeps.db, ctx, subscriptionId, at);
    await invalidateCredentials(txDeps);
    return { keyIds, clientCredentialIds };
  },

  async recordRevocations(txDeps, ctx, subscriptionId, revoked) {
    const payload = { reason: 'subscription_cancelled', subscriptionId };
    for (const keyId of revoked.keyIds) {
      await recordAudit(txDeps.db, txDeps, ctx, { eventType: 'api_key.revoked', targetType: 'api_key', targetId: keyId, payload });
    }
    for (const clientId of revoked.clientCredentialIds) {
      await recordAudit(txDeps.db, txDeps, ctx, { eventType: 'client_credential.revoked', targetType: 'client_credential', targetId: clientId, payload });
    }
  },
};
