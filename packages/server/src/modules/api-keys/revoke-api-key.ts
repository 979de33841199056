import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Credential } from '../../lib/principal.js';
import { revokeCredential } from '../credentials/revoke-credential.js';
import type { ApiKey } from './api-key.js';
import { revokeApiKeyRow } from './api-key.repository.js';
import { apiKeyEvent } from './api-key-event.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { assertHoldsScopes } from './create-api-key.js';
import { findKeyForCaller } from './replace-api-key.js';

/**
 * Revokes at once, with no grace period, on every node, with its api_key.revoked webhook message. Revoking a revoked key is a no-op that
 * returns it (DELETE is idempotent). A workspace key may revoke only keys whose scopes it holds.
 */
export function revokeApiKey(deps: Deps, ctx: OperationContext, id: string, caller: Credential | null): Promise<ApiKey> {
  return revokeCredential(deps, ctx, {
    find: (trx) => findKeyForCaller({ ...deps, db: trx }, ctx, id, caller),
    authorize: (target) => assertHoldsScopes(caller, target.scopes, 'revoke'),
    revoke: (trx, now) => revokeApiKeyRow(trx, ctx, id, now),
    event: { eventType: 'api_key.revoked', targetType: 'api_key', targetId: id, payload: { reason: 'requested' } },
    revoked: (trx, before, after) =>
      emitWebhookEvent(trx, deps, ctx, apiKeyEvent('api_key.revoked', after, deps.clock.now(), { before, details: { reason: 'requested' } })),
  });
}
