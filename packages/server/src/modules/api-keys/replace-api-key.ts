import type { Deps } from '../../deps.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { apiKeyEvent } from './api-key-event.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { ApiKey } from './api-key.js';
import { findApiKey, insertApiKey, retireActiveKey } from './api-key.repository.js';
import type { Credential } from '../../lib/principal.js';
import { assertHoldsScopes } from './create-api-key.js';
import { newBearerKey } from '../credentials/secrets.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { timeOf } from '../test-clocks/clock-time.js';

export interface ReplacedApiKey {
  key: ApiKey;
  fullToken: string;
  previous: ApiKey;
}

/**
 * Finds a key the caller may act on. A product key may act only on itself, a hub session only on
 * its customer's product keys; any other key id reads as absent (404), as does a key of another
 * workspace or environment.
 */
export async function findKeyForCaller(deps: Deps, ctx: OperationContext, id: string, caller: Credential | null): Promise<ApiKey> {
  if (caller?.type === 'product_key' && caller.id !== id) throw notFound('API key', id);
  const key = await findApiKey(deps.db, ctx, id);
  if (!key) throw notFound('API key', id);
  if (caller?.type === 'hub_session' && (key.kind !== 'PRODUCT' || key.customerId !== caller.customerId)) throw notFound('API key', id);
  return key;
}

/**
 * Issues a new key with the old one's name, scopes and binding, and retires the old one:
 * `rotate` leaves it working for the grace period (300 s), `roll` revokes it at once.
 */
export async function replaceApiKey(
  deps: Deps,
  ctx: OperationContext,
  id: string,
  caller: Credential | null,
  mode: 'rotate' | 'roll',
): Promise<ReplacedApiKey> {
  const result = await inTransaction(deps.db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    const old = await findKeyForCaller(txDeps, ctx, id, caller);
    assertHoldsScopes(caller, old.scopes, mode);
    if (old.status !== 'ACTIVE') {
      throw new AppError(
        'KEY_NOT_ACTIVE',
        `Key '${id}' is ${old.status.toLowerCase()}; only an active key can be ${mode === 'rotate' ? 'rotated' : 'rolled'}.`,
      );
    }
    const now = deps.clock.now();
    const secret = newBearerKey(ctx.environment);
    const key: ApiKey = {
      ...old,
      id: deps.ids.next('apiKey'),
      hint: secret.hint,
      status: 'ACTIVE',
      expiresAt: null,
      replacedById: null,
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
    };
    await insertApiKey(trx, ctx, key, secret.hash);
    const graceMs = deps.config.rotationGraceSeconds * 1000;
    // A key whose subscription lives on a test clock keeps working until the clock passes its
    // grace (the advance ends it), not for 300 s of real time.
    const testClockId = mode === 'rotate' && old.subscriptionId !== null ? ((await findSubscription(trx, ctx, old.subscriptionId))?.testClockId ?? null) : null;
    const clockGrace = testClockId === null ? null : { testClockId, endsAt: (await timeOf(txDeps, ctx, testClockId)) + graceMs };
    const expiresAt = mode === 'rotate' && clockGrace === null ? now + graceMs : null;
    const retired = await retireActiveKey(trx, ctx, id, {
      status: mode === 'rotate' ? 'ROTATED' : 'REVOKED',
      expiresAt,
      replacedById: key.id,
      now,
      clockGrace,
    });
    if (!retired) throw new AppError('KEY_NOT_ACTIVE', `Key '${id}' was changed by another request; fetch it and try again.`);
    const eventType = mode === 'rotate' ? 'api_key.rotated' : 'api_key.rolled';
    const payload = {
      newKeyId: key.id,
      graceEndsAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
      testClockId: clockGrace?.testClockId ?? null,
      graceEndsAtClock: clockGrace ? new Date(clockGrace.endsAt).toISOString() : null,
    };
    await recordAudit(trx, deps, ctx, { eventType, targetType: 'api_key', targetId: id, payload });
    // The old key as its GET now shows it (on a test clock its expiresAt stays null until the clock passes the grace).
    const retiredKey = (await findApiKey(trx, ctx, id))!;
    await emitWebhookEvent(trx, deps, ctx, apiKeyEvent(eventType, retiredKey, now, { before: old, details: payload }));
    const previous: ApiKey = {
      ...old,
      status: mode === 'rotate' ? 'ROTATED' : 'REVOKED',
      // On a test clock: when the grace ends in the clock's time.
      expiresAt: expiresAt ?? clockGrace?.endsAt ?? null,
      replacedById: key.id,
      updatedAt: now,
      revokedAt: mode === 'roll' ? now : null,
    };
    return { key, fullToken: secret.plaintext, previous };
  });
  // The old key's cached state is stale on every node now.
  await invalidateCredentials(deps);
  return result;
}
