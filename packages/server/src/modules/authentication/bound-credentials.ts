import { recordAudit } from '../audit/audit-event.repository.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import { findApiKeys, revokeKeysForSubscription } from '../api-keys/api-key.repository.js';
import { apiKeyEvent } from '../api-keys/api-key-event.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
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
    const keys = new Map((await findApiKeys(txDeps.db, ctx, revoked.keyIds)).map((k) => [k.id, k]));
    const now = txDeps.clock.now();
    for (const keyId of revoked.keyIds) {
      await recordAudit(txDeps.db, txDeps, ctx, { eventType: 'api_key.revoked', targetType: 'api_key', targetId: keyId, payload });
      // One message per key revoked, ordered after its subscription's subscription.cancelled.
      const key = keys.get(keyId);
      if (key) await emitWebhookEvent(txDeps.db, txDeps, ctx, apiKeyEvent('api_key.revoked', key, now, { details: { reason: payload.reason } }));
    }
    for (const clientId of revoked.clientCredentialIds) {
      await recordAudit(txDeps.db, txDeps, ctx, { eventType: 'client_credential.revoked', targetType: 'client_credential', targetId: clientId, payload });
    }
  },
};
