import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { checkSecret } from './save-webhook-endpoint.js';
import { signingSecretHint } from './signing-secret.js';
import { DEFAULT_GRACE_SECONDS, secretAssociatedData, type RotateSecretInput, type WebhookEndpoint } from './webhook-endpoint.js';
import { findWebhookEndpoint, updateWebhookEndpointRow } from './webhook-endpoint.repository.js';

/**
 * A new signing secret, shown once. The current one becomes the previous one until the grace
 * ends (deliveries meanwhile carry both signatures, so the seller can switch at any moment);
 * any older previous secret is dropped, so at most two signatures are ever sent. A grace of 0
 * drops the old secret at once.
 */
export async function rotateEndpointSecret(
  deps: Deps,
  ctx: OperationContext,
  id: string,
  input: RotateSecretInput,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = checkSecret(input.secret, 'body.secret');
  const grace = input.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  return inTransaction(deps.db, async (trx) => {
    const current = await findWebhookEndpoint(trx, ctx, id);
    if (!current) throw notFound('webhook endpoint', id);
    const now = deps.clock.now();
    const next: WebhookEndpoint = {
      ...current,
      secret: { ...deps.secrets.seal(secret, secretAssociatedData(id)), hint: signingSecretHint(secret) },
      // Sealed for this endpoint already: the ciphertext moves as it is.
      previousSecret: grace > 0 ? { ciphertext: current.secret.ciphertext, keyId: current.secret.keyId, expiresAt: now + grace * 1000 } : null,
      updatedAt: now,
    };
    await updateWebhookEndpointRow(trx, next);
    await recordAudit(trx, deps, ctx, {
      eventType: 'webhook_endpoint.secret_rotated',
      targetType: 'webhook_endpoint',
      targetId: id,
      payload: { gracePeriodSeconds: grace, secretGiven: input.secret !== undefined },
    });
    return { endpoint: next, secret };
  });
}
